"""The trace page's style sheet and script, inlined by ``checker.renderers.html`` (the page
stays one self-contained file). The scripts hold no data: they read the page's sections and
the body's ``data-length`` (and, for a lasso, ``data-back`` and ``data-stutter``).

A lasso's page adds ``LOOP_STYLE`` and ``LOOP_SCRIPT`` (every other page stays as it was):
the loop script steps a cycle's last state on to the loop's first (→ and Next), marks the
shown state on the timeline and says in the caption when it is in the loop.
"""

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;max-width:90em}
h1{font-size:1.3em;margin:0 0 .2em} .meta{color:#555;margin:0 0 .8em}
.why{background:#fdecea;border-left:4px solid #c62828;padding:.6em .8em;margin:0 0 1em}
.nav{display:flex;gap:.6em;align-items:center;margin:0 0 1em} .nav input{flex:1}
.step{border:1px solid #ccc;border-radius:6px;padding:.6em .9em}
.action{font-weight:600;margin:0 0 .6em}
.grid{display:grid;grid-template-columns:max-content repeat(var(--offsets),4.1em) max-content;
 gap:.35em 0;align-items:center}
.replica{display:contents} .head{font-size:.8em;color:#666;text-align:center}
.head.who,.head.marks{text-align:left}
.who{white-space:nowrap;font-size:.9em;padding-right:1em} .who .changed{background:#ffe082}
.cell{position:relative;box-sizing:border-box;width:3.6em;height:2.7em;margin:0 .2em;
 border:1px solid #555;display:flex;flex-direction:column;align-items:center;
 justify-content:center;font-size:.85em;background:#fff}
.cell.empty{border:none;background:none}
.cell .epoch{color:#666;font-size:.85em} .cell.committed{background:#c8e6c9}
.cell.changed{outline:3px solid #f9a825} .cell.leo{border:2px dashed #888;color:#888}
.cell.removed{text-decoration:line-through;border-color:#c62828;color:#c62828;opacity:.75}
.cell.hw-here::before{content:"";position:absolute;left:-.3em;top:-.25em;bottom:-.25em;
 width:4px;background:#c62828}
.cell.hw-moved::before{width:7px;left:-.4em;background:#ef6c00;box-shadow:0 0 6px #ef6c00}
.marks{white-space:nowrap;font-size:.9em;padding-left:.8em}
.marks span{padding:0 .25em} .marks .changed{background:#ffe082;font-weight:600}
.down .cell{opacity:.45} .controller{margin-top:.6em;color:#444;font-size:.9em}
.controller.changed{background:#ffe082} .legend{color:#666;font-size:.85em;margin-top:1em}
.expected{background:#fff8e1;border-left:4px solid #f9a825;padding:.6em .8em;margin:0 0 1em}
.tickets{background:#fff8e1;border-left:4px solid #f9a825;padding:.6em .8em;margin:0 0 1em;list-style:none}
h2{font-size:1.1em;margin:1em 0 .2em} .aftermath{border-style:dashed;background:#fafafa}
.aftermath .action{color:#555}
"""

SCRIPT = """
(function(){
  var steps=document.querySelectorAll('section.step'), slider=document.getElementById('slider'),
      caption=document.getElementById('caption'), length=+document.body.dataset.length,
      current=0;
  function show(i, keepHash){
    current=Math.max(0,Math.min(steps.length-1,i));
    for(var k=0;k<steps.length;k++){steps[k].hidden=(k!==current);}
    slider.value=current+1;
    caption.textContent=current<length ? 'state '+(current+1)+' of '+length
      : 'state '+(current+1)+': aftermath '+(current+1-length)+' of '+(steps.length-length);
    if(!keepHash){history.replaceState(null,'','#state-'+(current+1));}
  }
  function fromHash(){
    var m=/^#state-(\\d+)$/.exec(location.hash);
    return m ? +m[1]-1 : null;
  }
  slider.addEventListener('input',function(){show(slider.valueAsNumber-1);});
  document.getElementById('prev').addEventListener('click',function(){show(current-1);});
  document.getElementById('next').addEventListener('click',function(){show(current+1);});
  document.addEventListener('keydown',function(e){
    if(e.key==='ArrowLeft'){show(current-1);e.preventDefault();}
    if(e.key==='ArrowRight'){show(current+1);e.preventDefault();}
  });
  window.addEventListener('hashchange',function(){
    var i=fromHash(); if(i!==null){show(i,true);}
  });
  var start=fromHash();
  show(start===null ? length-1 : start, true);
})();
"""

LOOP_STYLE = """
.loop{background:#f3e5f5;border-left:4px solid #8e24aa;padding:.6em .8em;margin:0 0 1em}
.loop code{white-space:pre-wrap} .loop-line{color:#6a1b9a;font-weight:600}
.timeline{display:flex;flex-wrap:wrap;gap:.3em;align-items:center;margin:0 0 1em}
.timeline a{text-decoration:none;color:#222} .tick{padding:.1em .5em;border:1px solid #bbb;
 border-radius:4px;background:#fff} .tick.current{background:#222;color:#fff}
.loop-band{display:inline-flex;gap:.3em;align-items:center;padding:.2em .4em;
 background:#e1bee7;border:2px solid #8e24aa;border-radius:6px}
.loop-label{font-size:.8em;font-weight:600;color:#6a1b9a;text-transform:uppercase}
.timeline .loop-end{color:#6a1b9a;font-weight:600} #loop-caption{color:#6a1b9a}
.step.in-loop{border-color:#8e24aa} .loop-mark{color:#6a1b9a;margin-left:.6em}
"""

LOOP_SCRIPT = """
(function(){
  var body=document.body, length=+body.dataset.length, back=+body.dataset.back,
      stutter=body.dataset.stutter==='true', caption=document.getElementById('caption'),
      said=document.getElementById('loop-caption'),
      ticks=document.querySelectorAll('#timeline [data-state]');
  function shown(){
    var step=document.querySelector('section.step:not([hidden])');
    return step ? +step.dataset.step : 0;
  }
  function atEnd(){ return !stutter && shown()===length; }
  function goBack(e){  // the main script opens the state the address names
    e.preventDefault(); e.stopPropagation();
    history.replaceState(null,'','#state-'+(back+1));
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  }
  window.addEventListener('keydown',function(e){
    if(e.key==='ArrowRight' && atEnd()){goBack(e);}
  },true);
  document.addEventListener('click',function(e){
    if(e.target.id==='next' && atEnd()){goBack(e);}
  },true);
  function mark(){
    var n=shown();
    for(var t=0;t<ticks.length;t++){
      ticks[t].classList.toggle('current',+ticks[t].dataset.state===n);
    }
    said.textContent=n<=back || n>length ? ''
      : stutter ? ' · it stutters here for ever' : ' · in the loop (states '+(back+1)+'–'+length+')';
  }
  new MutationObserver(mark).observe(caption,{childList:true,characterData:true,subtree:true});
  mark();
})();
"""
