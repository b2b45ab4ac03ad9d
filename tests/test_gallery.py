"""``reports/gallery/`` is what ``python -m checker.view.gallery`` writes today: a change to the
model, the trace format or the page that changes a canonical counterexample fails this test
until the gallery is regenerated (and the change looked at)."""

from __future__ import annotations

from checker.view import gallery, tracefile


def test_gallery_is_up_to_date(tmp_path):
    fresh = gallery.build(tmp_path)
    assert len(fresh) == 2 * len(gallery.ENTRIES)
    stale = [str(path.relative_to(tmp_path)) for path in fresh
             if not (gallery.ROOT / path.relative_to(tmp_path)).is_file()
             or (gallery.ROOT / path.relative_to(tmp_path)).read_bytes() != path.read_bytes()]
    assert stale == [], "regenerate with: python -m checker.view.gallery"


def test_gallery_traces_validate_and_replay():
    lengths = {}
    for entry in gallery.ENTRIES:
        path = gallery.ROOT / entry.folder / "trace.json"
        document = tracefile.load(path)
        _, violation = tracefile.replay(path, document)
        assert tracefile.still_violated(violation)
        lengths[entry.folder] = violation.length
    assert lengths == {"hw-truncation-loss": 11, "hw-truncation-divergence": 14,
                       "kip101-hole": 13, "unclean-election": 7}
