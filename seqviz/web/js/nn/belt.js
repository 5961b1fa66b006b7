// seqviz.nn's conveyor belt, the twin of seqviz/viz/gates/data.py's forget_survival: the share of an LSTM's cell
// state written at token `start` that is still on the belt at each later token s, S = f[start+1] * ... * f[s].
"use strict";

// forget: T vectors (U,) of forget gates; start: a 0-based token index. Returns T - start rows (U,) of doubles,
// the first all ones (nothing has been forgotten at the start itself).
nn.beltSurvival = function (forget, start) {
  if (!(Number.isInteger(start) && start >= 0 && start < forget.length))
    throw new Error(`the belt's start must be a token index in 0..${forget.length - 1}, got ${start}`);
  const rows = [], U = forget[0].length;
  let share = new Float64Array(U).fill(1);
  rows.push(share);
  for (let s = start + 1; s < forget.length; s++) {
    share = share.map((v, u) => v * forget[s][u]);
    rows.push(share);
  }
  return rows;
};
