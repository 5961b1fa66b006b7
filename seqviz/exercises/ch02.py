"""Exercises of chapter 02, the sticky note (registered on import).

- ch02.ex1: one RNN step, ``rnn_step(x, h, W_ih, W_hh, b_ih, b_hh)``, equal to ``torch.nn.RNNCell``;
- ch02.ex2: the number of parameters of ``torch.nn.RNN(input_size, hidden_size)``, as a function;
  ch02.ex2b, its follow-up: how many parameters reading sequences twice as long adds;
- ch02.ex3: the last state of a tiny linear RNN, by hand: how much of the first input survives;
- ch02.ex4: backpropagation through time by hand: dL/dw of a scalar linear RNN as a sum over steps;
- ch02.ex5 (a conceptual question, a choice): which words can still change the answer once W_hh is set to zero.

The checkers compare with the chapter's shipped expected values (:mod:`seqviz.exercises.expected`); the
reference answers and hidden tests are in the instructor's material (``instructor/exercises/ch02.py``).
"""

from __future__ import annotations

import torch

from .expected import Expected
from .registry import as_choice, as_number, as_tensor, cell_inputs, compare_tensors, exercise

EXPECTED = Expected("ch02")

# -- ex1: one step ------------------------------------------------------------------------------


@exercise("ch02.ex1", "One step of the sticky note")
def check_rnn_step(answer):
    if not callable(answer):
        return False, "answer should be your function rnn_step (the function itself, without calling it)."
    generator = torch.Generator().manual_seed(2)
    for (batch, input_size, hidden_size), x, h, weights in cell_inputs(((3, 4, 5), (1, 2, 7), (6, 5, 3)), generator,
                                                                        squash_state=True):
        case = f"{batch},{input_size},{hidden_size}"
        expected = EXPECTED("rnn_cell", case, x, h, *weights)
        with torch.no_grad():
            got = answer(x, h, *weights)
        ok, message = compare_tensors(got, expected, f"rnn_step for batch {batch}, input {input_size}, "
                                                     f"hidden {hidden_size}")
        if not ok:
            got = as_tensor(got, expected, "rnn_step's result")
            if got.shape == expected.shape:
                if got.abs().max() > 1:
                    message += " Some values lie outside [-1, 1]: did you squash with tanh?"
                else:
                    message += (" Check that you use the previous state h (times W_hh transposed) and add both "
                                "biases, b_ih and b_hh.")
            return False, message
    return True, "rnn_step equals torch.nn.RNNCell on three random batches: this is the whole recurrent cell."


# -- ex2: counting parameters -------------------------------------------------------------------


@exercise("ch02.ex2", "Counting the sticky note's parameters")
def check_count(answer):
    if not callable(answer):
        return False, "answer should be a function rnn_parameters(input_size, hidden_size) returning an int."
    for input_size, hidden_size in ((1, 1), (3, 5), (16, 32), (100, 7)):
        expected = EXPECTED("rnn_parameters", f"{input_size},{hidden_size}", input_size, hidden_size)
        got = as_number(answer(input_size, hidden_size), "an int (the number of parameters)")
        if got != expected:
            hint = ""
            if got == expected - hidden_size:
                hint = " You are one bias vector short: PyTorch keeps two, b_ih and b_hh (their sum acts as one)."
            elif got == expected - 2 * hidden_size:
                hint = " You forgot the biases."
            elif got < expected - 2 * hidden_size:
                hint = " Is W_hh (hidden x hidden) in your count?"
            return False, (f"for input_size={input_size}, hidden_size={hidden_size} you count {got:g}, "
                           f"but torch.nn.RNN has {expected}.{hint}")
    return True, ("your formula matches torch.nn.RNN for four sizes. Notice what is missing from it: the "
                  "length of the sequence.")


@exercise("ch02.ex2b", "Counting the note's parameters: longer sequences")
def check_count_follow_up(answer):
    got = as_number(answer, "a number of parameters (how many are added)")
    if got == 0:
        return True, ("none: W_ih, W_hh and the biases are used again at every step, so a network reading 10 or "
                      "1,000 tokens has exactly the same parameters.")
    return False, (f"{got:g} parameters would be added? Look at your formula: which of its terms mentions the "
                   "length of the sequence?")


# -- ex3: a linear RNN by hand ------------------------------------------------------------------

EX3_W, EX3_U, EX3_XS = 0.5, 1.0, (1.0, 0.0, 0.0, 2.0)


@exercise("ch02.ex3", "A linear sticky note, by hand")
def check_linear_last(answer):
    got = as_number(answer, "a number (h_4)")
    expected = EXPECTED("linear_last", "book", EX3_W, EX3_U, EX3_XS)
    if abs(got - expected) < 1e-6:
        return True, (f"h_4 = {expected:g}: of the first input only w^3 = {EX3_W ** 3:g} survives three "
                      "rewrites. The note fades geometrically; chapter 3 is about exactly this.")
    if abs(got - sum(EX3_XS)) < 1e-6:
        return False, f"{got:g} is the plain sum of the inputs: each rewrite multiplies the old note by w = {EX3_W}."
    if abs(got - EX3_XS[-1] * EX3_U) < 1e-6:
        return False, f"{got:g} forgets everything before the last step: h_3 is not zero."
    if abs(got - (EX3_XS[-1] + EX3_W ** 2 * EX3_XS[0])) < 1e-6:
        return False, (f"{got:g} is one rewrite short: x_1 enters at step 1 and is multiplied by w at steps 2, 3 "
                       "and 4.")
    return False, (f"{got:g} is not h_4. Write h_1, h_2, h_3, h_4 one after the other with "
                   f"h_t = {EX3_W} h_(t-1) + {EX3_U} x_t and h_0 = 0.")


# -- ex4: BPTT by hand --------------------------------------------------------------------------


@exercise("ch02.ex4", "Backpropagation through time, by hand")
def check_grad_w(answer):
    if not callable(answer):
        return False, "answer should be your function grad_w(w, xs) returning dL/dw as a number."
    generator = torch.Generator().manual_seed(4)
    cases = [(0.5, [1.0, 0.0, 0.0, 2.0]), (0.9, [1.0]), (-0.7, [0.3, -1.2, 2.0])]
    cases += [(float(torch.rand((), generator=generator) * 2 - 1), torch.randn(6, generator=generator).tolist())
              for _ in range(3)]
    for i, (w, xs) in enumerate(cases):
        expected = EXPECTED("grad_w", i, w, xs)
        got = as_number(answer(w, list(xs)), "a number (dL/dw)")
        if abs(got - expected) > 1e-6 * max(1.0, abs(expected)):
            hint = ""
            last_step, no_chain = EXPECTED.maybe("grad_w_last_step_only", i), EXPECTED.maybe("grad_w_no_chain", i)
            if last_step is not None and abs(got - last_step) < 1e-9:
                hint = (" That is only the last step's share. w was used at every step: add the share of each "
                        "copy, dL/dh_t * h_(t-1), where dL/dh_t = w^(T-t).")
            elif no_chain is not None and abs(got - no_chain) < 1e-9:
                hint = (" You added h_(t-1) for every step, but the loss reaches step t only through the later "
                        "rewrites: weight each share by dL/dh_t = w^(T-t).")
            xs_text = ", ".join(f"{x:.3g}" for x in xs)
            return False, f"for w = {w:.3g}, xs = [{xs_text}] you give {got:.6g}, autograd says {expected:.6g}.{hint}"
    return True, ("your sum over the unrolled copies equals autograd on six sequences: that sum is "
                  "backpropagation through time.")


# -- ex5: the note without its recurrent matrix (predict, then run) ------------------------------

CH02_EX5_CHOICES = ("a) every word, as before: W_ih still reads each of them",
                    "b) only the last word",
                    "c) none: without W_hh the note stays at zero")


@exercise("ch02.ex5", "The note without W_hh")
def check_no_recurrence(answer):
    choice = as_choice(answer, CH02_EX5_CHOICES, "the words you predict")
    if choice == EXPECTED("no_recurrence", "choice", CH02_EX5_CHOICES):
        return True, ("With W_hh = 0 each step writes h_t = tanh(W_ih x_t + b) from the current word alone, so the "
                      "last note, the one the classifier reads, has seen only the last word. Everything a plain RNN "
                      "remembers travels through W_hh.")
    if choice.startswith("a)"):
        return False, ("W_ih does read every word, but a word can reach a later note only through W_hh: with "
                       "W_hh = 0 each note is tanh(W_ih x_t + b), and the last one has seen only the last word.")
    return False, ("The note is not stuck at zero: each step still writes tanh(W_ih x_t + b) from the current word. "
                   "Only what came before it is lost.")
