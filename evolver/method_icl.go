package evolver

import (
	"context"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// ICL is in-context learning from the stream itself: every episode becomes
// an example, the input the doctor saw and the answer it gave, and the
// memory's retrieval puts examples into the doctor's context. Its variants
// (evolver.icl.episodes):
//
//   - correct: StreamBench's Self-StreamICL (Wu, Tam, Lin, Chen, Lee 2024,
//     arXiv 2406.08747, §4.1.2 and Algorithm 2 with K = 1): (x_t, ŷ_t) is
//     kept only when the feedback fb_t marked the answer correct, so no
//     wrong answer and no verbalised feedback enters the prompt; StreamBench
//     retrieves the k = 16 most similar (appendix A), which is
//     memory.retrieval similarity with memory.k 16;
//   - all: every (x_t, ŷ_t) with its feedback, the full-context in-context
//     learning baseline (the latest episodes, as many as fit the context):
//     memory.retrieval recent with a large memory.k and memory.context_tokens.
//
// The feedback it reads is the score's pass, all a score-only learner gets;
// the prompt never changes. No model is needed.
type ICL struct{}

// Evolve writes the episode's example, or nothing for an answer the
// correct-only variant does not keep.
func (ICL) Evolve(_ context.Context, cfg settings.Evolver, in Input, truth *grader.Key, rules []clinic.Rule) (Output, error) {
	out := Output{Rules: append([]clinic.Rule(nil), rules...)}
	if !in.WriteCards || (cfg.ICL.Kept() == settings.ICLCorrect && !in.Outcome.Pass) {
		return out, nil
	}
	out.Cards, out.Skipped = screened(cfg, in, truth, []clinic.Card{example(in)})
	return out, nil
}

// example is an episode as an in-context example: the input (what the
// doctor saw at the door and what the patient told it), the answer, and,
// for an answer that was wrong, the feedback saying so. A right answer is a
// diagnosis to reuse for a like input, a wrong one a diagnosis to avoid.
func example(in Input) clinic.Card {
	x := input(in)
	dx := predicted(in)
	verdict := "correct"
	if !in.Outcome.Pass {
		verdict = "not correct"
	}
	c := methodCard(in, clinic.CardExample, 4000, x+"\nAnswer: "+orNone(dx)+" (feedback: "+verdict+")")
	c.Context, c.SearchText = x, x
	for _, ev := range in.Events {
		if ev.Action == clinic.Ask && len(ev.RevealedFacts) > 0 {
			c.Ask = append(c.Ask, TopicsOf(ev)...)
		}
	}
	if in.Outcome.Pass {
		c.Diagnosis = dx
	} else {
		c.Avoid = dx
	}
	return c
}

// input is what the doctor knew by the end of an episode: the presentation
// and every answer in which the patient told something.
func input(in Input) string {
	lines := []string{in.Opening}
	for _, ev := range in.Events {
		if ev.Action == clinic.Ask && len(ev.RevealedFacts) > 0 {
			lines = append(lines, ev.Question+" "+ev.Reply)
		}
	}
	return strings.Join(lines, "\n")
}
