// seqviz.nn's tokenizers: a typed text to tokens and ids, the twin of seqviz/web/export.py's known_ids (the
// chapters' words: re.findall(pattern, text.lower()), then Vocab.encode) and of seqviz/web/generate.py's
// prompt_tokens (characters, or words by seqviz/data/real.py's tokenize rule). What seqviz refuses (an
// empty text, a word the model does not know, a special token, too many tokens) is an Error whose message
// the view shows.
"use strict";

// The chapters' words: spec.vocab = {itos, specials, pattern, lower, max_tokens}. Returns {tokens, ids}.
nn.encode = function (spec, text) {
  const v = spec.vocab, pattern = new RegExp(v.pattern, "g");
  const tokens = (v.lower ? text.toLowerCase() : text).match(pattern) || [];
  if (!tokens.length) throw new Error(nn.say(spec, "type a sentence in the box (words separated by spaces)"));
  if (v.max_tokens && tokens.length > v.max_tokens)
    throw new Error(nn.say(spec, "{n} words; this view reads at most {max}", { n: tokens.length, max: v.max_tokens }));
  const index = v._index || (v._index = new Map(v.itos.map((t, i) => [t, i])));
  const unknown = tokens.filter((t) => !index.has(t) || v.specials.includes(t));
  if (unknown.length) {
    const known = v.itos.filter((t) => !v.specials.includes(t)), first = [...new Set(unknown)];
    const words = first.slice(0, 5).map((t) => `'${t}'`).join(", ") + (first.length > 5 ? " ..." : "");
    throw new Error(nn.say(spec, "this model has never seen {words}; it only knows {n} words, such as {sample} ...",
                           { words, n: known.length, sample: known.slice(0, 12).join(", ") }));
  }
  return { tokens, ids: tokens.map((t) => index.get(t)) };
};

// A language model's prompt: spec.vocab = {itos, specials, pattern, flags, lower, max_tokens, level}
// (level "char": every character; "word": seqviz.data.real.TOKEN in JavaScript). Returns {tokens, ids}.
nn.lmTokens = function (spec, text) {
  const v = spec.vocab, char = v.level === "char";
  const tokens = (v.lower ? text.toLowerCase() : text).match(new RegExp(v.pattern, v.flags)) || [];
  if (!tokens.length)
    throw new Error(char ? nn.say(spec, "type a prompt in the box (at least one character)")
      : nn.say(spec, "type a prompt in the box (at least one word)"));
  if (tokens.length > v.max_tokens) {
    const values = { n: tokens.length, max: v.max_tokens };
    throw new Error(char ? nn.say(spec, "{n} characters; this view reads at most {max}", values)
      : nn.say(spec, "{n} words; this view reads at most {max}", values));
  }
  const index = v._index || (v._index = new Map(v.itos.map((t, i) => [t, i])));
  const unknown = [...new Set(tokens.filter((t) => !index.has(t) || v.specials.includes(t)))];
  if (unknown.length) {
    const known = v.itos.filter((t) => !v.specials.includes(t)), show = (t) => JSON.stringify(t).slice(1, -1);
    const listed = unknown.slice(0, 5).map((t) => `'${show(t)}'`).join(", ") + (unknown.length > 5 ? " ..." : "");
    const values = { listed, n: known.length, sample: known.slice(0, 12).map(show).join(" ") };
    throw new Error(char ? nn.say(spec, "this model has never seen {listed}; it knows {n} characters, such as {sample} ...", values)
      : nn.say(spec, "this model has never seen {listed}; it knows {n} words, such as {sample} ...", values));
  }
  return { tokens, ids: tokens.map((t) => index.get(t)) };
};
