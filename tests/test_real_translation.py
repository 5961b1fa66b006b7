"""The real-sentence translation runner: BLEU against hand-computed and self references, detokenization,
vocabularies, multi-reference grouping, exact match on a toy translator, and clear errors."""

import math

import pytest
import torch

from seqviz.data import BOS, EOS, UNK, Pair, pairs_to_tensors
from seqviz.experiments.real_translation import (MIN_COUNT, RealTranslator, Translations, bleu, build_vocabs,
                                                 detokenize, group_references, paired_bootstrap,
                                                 train_real_translator, translate)
from seqviz.models import Seq2Seq, sequence_loss
from seqviz.train import fit


def test_references_against_themselves_score_100():
    refs = ["je suis là.", "va !", "il fait beau aujourd'hui."]
    assert bleu(refs, [[r] for r in refs]) == pytest.approx(100.0)


def test_bleu_equals_the_formula_on_a_tiny_case():
    # one sentence, one wrong last word: precisions 5/6, 4/5, 3/4, 2/3, no brevity penalty
    expected = 100 * math.exp(sum(math.log(p) for p in (5 / 6, 4 / 5, 3 / 4, 2 / 3)) / 4)
    assert bleu(["a b c d e f"], [["a b c d e g"]]) == pytest.approx(expected, abs=1e-6)
    # too short by one word against a reference of 7: brevity penalty exp(1 - 7/6), precisions all 1
    assert bleu(["a b c d e f"], [["a b c d e f g"]]) == pytest.approx(100 * math.exp(1 - 7 / 6), abs=1e-6)


def test_bleu_parts_are_the_clipped_precisions_and_the_brevity_penalty():
    # "le le le le" against "le chat dort ." and "a b c d e f" against a reference one word longer
    run = Translations([["x"], ["y"]], [[["le", "chat", "dort", "."]], [["a", "b", "c", "d", "e", "f", "g"]]],
                       [["le", "le", "le", "le"], ["a", "b", "c", "d", "e", "f"]])
    parts = run.bleu_parts()
    assert parts["output_length"] == 10 and parts["reference_length"] == 11
    assert parts["precisions"][0] == pytest.approx((1 + 6) / 10)  # one "le" credited, not four (clipping)
    assert parts["precisions"][1] == pytest.approx(5 / 8)          # "le le" x3 never, "a b" ... "e f" all five
    assert parts["brevity_penalty"] == pytest.approx(math.exp(1 - 11 / 10))
    score = parts["brevity_penalty"] * math.exp(sum(math.log(p) for p in parts["precisions"]) / 4)
    assert run.bleu() == pytest.approx(100 * score, abs=1e-6)


def test_bleu_equals_sacrebleus_corpus_bleu():
    import sacrebleu

    hyps = ["il fait froid.", "je suis là !", "nous avons gagné le match."]
    refs = [["il fait froid."], ["je suis ici !"], ["on a gagné le match.", "nous avons gagné la partie."]]
    streams = [[r[0] for r in refs], [None, None, refs[2][1]]]
    assert bleu(hyps, refs) == pytest.approx(sacrebleu.corpus_bleu(hyps, streams, tokenize="13a").score, abs=1e-9)


def test_bleu_takes_a_different_number_of_references_per_sentence():
    hyps = ["nous sommes prêts.", "va !"]
    # the first output matches its second reference only: multi-reference BLEU is still 100
    assert bleu(hyps, [["on est prêts.", "nous sommes prêts."], ["va !"]]) == pytest.approx(100.0)
    assert bleu(hyps, [["on est prêts."], ["va !"]]) < 100.0


@pytest.mark.parametrize("hyps, refs", [(["a"], [["a"], ["b"]]), ("a", [["a"]]), (["a"], ["a"]), ([], []),
                                        (["a"], [[]])])
def test_bleu_rejects_bad_input(hyps, refs):
    with pytest.raises(ValueError):
        bleu(hyps, refs)


def test_detokenized_text_tokenizes_back_with_13a():
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    tokens = ["attends", ",", "je", "n'ai", "pas", "fini", "(", "encore", ")", "!"]
    text = detokenize(tokens)
    assert text == "attends, je n'ai pas fini (encore) !"
    assert Tokenizer13a()(text).split() == tokens
    assert detokenize(["go", "now", "."], "en") == "go now."
    assert detokenize(["help", "!"], "en") == "help!"
    with pytest.raises(ValueError, match="language"):
        detokenize(["a"], "de")


def test_rare_words_become_unk():
    pairs = [Pair(["i", "run", "."], ["je", "cours", "."]), Pair(["i", "walk", "."], ["je", "marche", "."])]
    source, target = build_vocabs(pairs, min_count=2)
    assert "i" in source and "." in source and "run" not in source
    assert source.encode(["run"]) == [source.stoi[UNK]]
    assert "je" in target and "cours" not in target
    assert len(build_vocabs(pairs, min_count=1)[1]) == len(target) + 2
    assert MIN_COUNT == 2
    with pytest.raises(ValueError, match="min_count"):
        build_vocabs(pairs, min_count=0)
    with pytest.raises(ValueError, match="Pair"):
        build_vocabs([], min_count=1)


def test_translations_of_one_sentence_become_its_references():
    pairs = [Pair(["hi", "."], ["salut", "."]), Pair(["go", "."], ["va", "."]), Pair(["hi", "."], ["bonjour", "."])]
    sources, references = group_references(pairs)
    assert sources == [["hi", "."], ["go", "."]]
    assert references == [[["salut", "."], ["bonjour", "."]], [["va", "."]]]


def test_scores_of_hand_made_translations():
    t = Translations(sources=[["hi", "."], ["go", "now", "."], ["run", "!"]],
                     references=[[["salut", "."], ["bonjour", "."]], [["va", "maintenant", "."]], [["cours", "!"]]],
                     outputs=[["bonjour", "."], ["va", "."], [UNK, "!"]])
    assert t.hits() == [True, False, False]
    assert t.exact_match() == pytest.approx(1 / 3)
    assert t.bleu() == pytest.approx(bleu(["bonjour.", "va.", "!"], [["salut.", "bonjour."], ["va maintenant."],
                                                                      ["cours !"]]))
    by_length = t.by_length(min_sentences=1)
    assert sorted(by_length) == [2, 3]
    assert by_length[2]["sentences"] == 2 and by_length[2]["exact_match"] == pytest.approx(0.5)
    assert by_length[3]["exact_match"] == 0.0
    assert t.by_length(min_sentences=3) == {}
    assert t.examples(1) == [{"source": "hi.", "reference": "salut.", "output": "bonjour."}]
    with pytest.raises(ValueError, match="equally long"):
        Translations([["a"]], [], [])


def _toy_translator():
    """A tiny Seq2Seq trained until it knows four pairs by heart."""
    pairs = [Pair(["hi", "."], ["salut", "."]), Pair(["go", "."], ["va", "!"]), Pair(["run", "!"], ["cours", "!"]),
             Pair(["we", "are", "ready", "."], ["nous", "sommes", "prêts", "."])]   # BLEU needs one 4-gram
    source, target = build_vocabs(pairs, min_count=1)
    torch.manual_seed(0)
    model = Seq2Seq(len(source), len(target), 16, 32, attention=True, bos_id=target.stoi[BOS],
                    eos_id=target.stoi[EOS])
    fit(model, pairs_to_tensors(pairs, source, target), sequence_loss, steps=150, batch_size=4, lr=1e-2,
        device="cpu", progress=False)
    return pairs, RealTranslator(model.eval(), source, target, [], 0.0, True)


def test_exact_match_and_bleu_of_a_toy_model_that_knows_its_pairs():
    pairs, translator = _toy_translator()
    for beam_size in (1, 3):
        t = translate(translator, pairs, beam_size=beam_size)
        assert t.outputs == [p.target for p in pairs]
        assert t.exact_match() == 1.0 and t.bleu() == pytest.approx(100.0)
    # the same model against references it cannot produce: no hit, BLEU below 100
    wrong = [Pair(p.source, ["non", *p.target]) for p in pairs]
    t = translate(translator, wrong)
    assert t.exact_match() == 0.0 and t.bleu() < 100.0
    assert len(translate(translator, pairs, limit=2)) == 2


def test_translate_rejects_bad_arguments():
    pairs, translator = _toy_translator()
    with pytest.raises(ValueError, match="beam_size"):
        translate(translator, pairs, beam_size=0)
    with pytest.raises(ValueError, match="limit"):
        translate(translator, pairs, limit=0)
    with pytest.raises(ValueError, match="split"):
        translate(translator, "dev")


def test_train_real_translator_on_the_real_pairs():
    t = train_real_translator(attention=False, embed_size=8, hidden_size=8, steps=3, device="cpu", progress=False)
    assert len(t.losses) == 3 and not t.model.training and not t.attention
    assert len(t.source_vocab) > 500 and len(t.target_vocab) > 500     # the real vocabularies, min count 2
    assert next(t.model.parameters()).device.type == "cpu"
    result = translate(t, "valid", limit=20)
    assert len(result) == 20 and 0.0 <= result.bleu() <= 100.0
    with pytest.raises(ValueError, match="steps"):
        train_real_translator(steps=0)


def test_paired_bootstrap_counts_wins_over_resampled_sets():
    sources = [["s", str(i)] for i in range(8)]
    references = [[["le", "chat", "est", "noir", str(i)]] for i in range(8)]
    right = Translations(sources, references, [r[0] for r in references])
    wrong = Translations(sources, references, [["un", "chien", str(i)] for i in range(8)])
    assert paired_bootstrap(right, wrong, samples=20) == 1.0
    assert paired_bootstrap(wrong, right, samples=20) == 0.0
    assert paired_bootstrap(right, right, samples=20) == 0.0          # a tie is not a win
    with pytest.raises(ValueError, match="same sentences"):
        paired_bootstrap(right, Translations(sources[:2], references[:2], sources[:2]))


def test_the_runner_trains_on_the_default_device_and_gives_the_cpus_translations():
    from emulated_accelerator import emulated_accelerator

    sizes = dict(embed_size=8, hidden_size=8, steps=2, progress=False)
    on_cpu = train_real_translator(attention=True, device="cpu", **sizes)
    expected = [translate(on_cpu, "valid", beam_size=k, limit=5).outputs for k in (1, 2)]
    with emulated_accelerator():
        t = train_real_translator(attention=True, **sizes)           # device=None: pick_device(), "cuda" here
        assert next(t.model.parameters()).device.type == "meta"      # the emulated accelerator
        got = [translate(t, "valid", beam_size=k, limit=5).outputs for k in (1, 2)]
    assert got == expected


def test_a_subword_translator_reads_and_writes_whole_words():
    """With BPE the model reads English pieces and writes French pieces; translate() still scores words."""
    from seqviz.data.subwords import SubwordBPE as BPE

    pairs = [Pair(["they", "will", "sing", "."], ["ils", "chanteront", "demain", "."]),
             Pair(["he", "will", "dance", "."], ["il", "dansera", "demain", "."])]  # 4 tokens: BLEU has a 4-gram
    source_bpe = BPE.learn([w for p in pairs for w in p.source], 6)
    target_bpe = BPE.learn([w for p in pairs for w in p.target], 6)
    pieces = [Pair(source_bpe.encode(p.source), target_bpe.encode(p.target)) for p in pairs]
    assert any(x.endswith("@@") for p in pieces for x in p.target)  # some word really is split
    source, target = build_vocabs(pieces, 1)
    torch.manual_seed(0)
    model = Seq2Seq(len(source), len(target), 16, 32, attention=True, bos_id=target.stoi[BOS],
                    eos_id=target.stoi[EOS])
    fit(model, pairs_to_tensors(pieces, source, target), sequence_loss, steps=150, batch_size=2, lr=1e-2,
        device="cpu", progress=False)
    translator = RealTranslator(model.eval(), source, target, [], 0.0, True, source_bpe, target_bpe)
    assert translator.encode_source(["he", "will"]) == source.encode(source_bpe.encode(["he", "will"]))
    t = translate(translator, pairs)
    assert t.outputs == [p.target for p in pairs] and t.bleu() == pytest.approx(100.0)
    with pytest.raises(ValueError, match="non-empty list of words"):
        translator.encode_source("he will")
    with pytest.raises(ValueError, match="output ids must be ints"):
        translator.words([len(target)])
    with pytest.raises(ValueError, match="RealTranslator"):
        translate(model, pairs)
    with pytest.raises(ValueError, match="length_penalty"):
        translate(translator, pairs, beam_size=2, length_penalty=float("nan"))
