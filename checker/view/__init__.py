"""Everything a person sees: terminal tables, progress, and run artefacts (JSON reports)."""
