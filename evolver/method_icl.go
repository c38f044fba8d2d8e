package evolver

import (
	"context"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// ICL is in-context learning from the stream itself: every episode becomes
// an example, the episode the doctor played and the answer it gave, kept
// for good, and the memory's retrieval puts examples into the doctor's
// context. Its variants (evolver.icl.episodes):
//
//   - correct: StreamBench's Self-StreamICL (Wu, Tam, Lin, Chen, Lee 2024,
//     arXiv 2406.08747, §4.1.2 and Algorithm 2 with K = 1): (x_t, ŷ_t) is
//     kept only when the feedback fb_t marked the answer correct, so no
//     wrong answer enters the prompt; StreamBench retrieves the k = 16 most
//     similar (appendix A), which is memory.retrieval similarity with
//     memory.k 16;
//   - all: every (x_t, ŷ_t) with its feedback: the full-context in-context
//     learning of CL-Bench (Asawa et al. 2026, arXiv 2606.05661, its naive
//     ICL agent: past instances and their outcomes in the context window),
//     the most recent first while they fit: memory.retrieval recent with a
//     memory.k above the stream's length and memory.context_tokens the
//     budget (runner.Retrieve counts it with tokens.Of, the model client's
//     estimate).
//
// An episode is kept raw (evolver.icl.trace raw: every turn as played, the
// doctor's question and the reply, the test and its result) or compressed
// as the transcripts method compresses it (compressed: the topics asked and
// the tests returned, one short line each), so the same budget holds more
// compressed episodes. Every example is kept: B_M does not evict them
// (settings.Evolver.Bounded). The feedback it reads is the score's pass, all
// a score-only learner gets; the prompt never changes. No model is needed.
type ICL struct{}

// Evolve writes the episode's example, or nothing for an answer the
// correct-only variant does not keep.
func (ICL) Evolve(_ context.Context, cfg settings.Evolver, in Input, truth *grader.Key, rules []clinic.Rule) (Output, error) {
	out := Output{Rules: append([]clinic.Rule(nil), rules...)}
	if !in.WriteCards || (cfg.ICL.Kept() == settings.ICLCorrect && !in.Outcome.Pass) {
		return out, nil
	}
	out.Cards, out.Skipped = screened(cfg, in, truth, []clinic.Card{example(in, cfg.ICL.Form())})
	return out, nil
}

// example is an episode as an in-context example: the episode in the given
// form, the answer, and the feedback on it. A right answer is a diagnosis to
// reuse for a like input, a wrong one a diagnosis to avoid. The input (what
// the doctor saw at the door and what the patient told it) is what
// similarity retrieval matches, as StreamBench retrieves by x_t.
func example(in Input, form string) clinic.Card {
	x := input(in)
	lines := rawLines(in)
	if form == settings.ICLCompressed {
		lines = compressedLines(in)
	}
	dx := predicted(in)
	verdict := "correct"
	if !in.Outcome.Pass {
		verdict = "not correct"
	}
	body := strings.Join(append([]string{in.Opening}, lines...), "\n")
	c := methodCard(in, clinic.CardExample, 4000, body+"\nAnswer: "+orNone(dx)+" (feedback: "+verdict+")")
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

// rawLines are the episode's turns as played, the final answer aside: every
// question with its reply, every test with its result or what became of it,
// every other action with its reply.
func rawLines(in Input) []string {
	var lines []string
	for _, ev := range in.Events {
		switch {
		case ev.Action == clinic.Ask:
			lines = append(lines, ev.Question+" "+ev.Reply)
		case ev.Action == clinic.RequestTest && ev.Status == clinic.StatusReturned:
			lines = append(lines, "Test "+ev.Test+": "+ev.Reply)
		case ev.Action == clinic.RequestTest:
			lines = append(lines, "Test "+ev.Test+": "+string(ev.Status))
		case ev.Final == nil && ev.ForcedFinal == nil && ev.Reply != "":
			lines = append(lines, string(ev.Action)+": "+ev.Reply)
		}
	}
	return lines
}
