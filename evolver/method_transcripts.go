package evolver

import (
	"context"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// Transcripts are EvoClinician's memory baselines (§4, baselines 2 and 3):
// the prompt stays fixed and every episode is kept as a compressed past
// transcript. The memory agent (method transcripts) shows the newest
// transcripts, dropping the oldest first (settings.Recall); RAG (method
// rag) retrieves the top-k by similarity. Neither needs a model.
type Transcripts struct{}

// Evolve writes the episode's transcript summary.
func (Transcripts) Evolve(_ context.Context, cfg settings.Evolver, in Input, truth *grader.Key, rules []clinic.Rule) (Output, error) {
	out := Output{Rules: append([]clinic.Rule(nil), rules...)}
	if !in.WriteCards {
		return out, nil
	}
	var cs []clinic.Card
	for _, c := range Records(cfg, in) {
		if c.Kind == clinic.CardSummary {
			cs = append(cs, c)
		}
	}
	out.Cards, out.Skipped = screened(cfg, in, truth, cs)
	return out, nil
}
