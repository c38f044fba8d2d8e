package evolver

import (
	"context"
	"fmt"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// ExpRAG is Evo-Memory's experience-retrieval baseline (Wei, Sachdeva,
// Coleman, He, Bei, Ning, Ai, Li, He, Chi, Wang, Chen, Pereira, Kang,
// Cheng 2025, arXiv 2511.20857,
// "Evo-Memory: Benchmarking LLM Agent Test-time Learning with Self-Evolving
// Memory", ExpRAG; section not verified): every finished task becomes one structured
// experience, the task's input, the agent's output and the feedback it got,
// and a new task retrieves the most similar past experiences into its
// context (the run's similarity retrieval, memory.k of them). The prompt
// never changes. It writes its experience from a template, with no model,
// as the paper's baseline does.
type ExpRAG struct{}

// Evolve writes the episode as one experience card.
func (ExpRAG) Evolve(_ context.Context, cfg settings.Evolver, in Input, truth *grader.Key, rules []clinic.Rule) (Output, error) {
	out := Output{Rules: append([]clinic.Rule(nil), rules...)}
	if !in.WriteCards {
		return out, nil
	}
	out.Cards, out.Skipped = screened(cfg, in, truth, []clinic.Card{experience(in, 0)})
	return out, nil
}

// experience is an episode as Evo-Memory's experience tuple (input, output,
// feedback): the presentation, what the doctor did and concluded, and the
// score. A passing episode's diagnosis is kept to reuse, a failing one's to
// avoid, with what it asked and which tests came back.
func experience(in Input, slot int) clinic.Card {
	dx := predicted(in)
	feedback := "failed"
	if in.Outcome.Pass {
		feedback = "succeeded"
	}
	text := fmt.Sprintf("TASK %s | DID %s | FEEDBACK %s (S=%.2f, cost %.0f)", in.Opening, strings.Join(transcriptLines(in), "; "), feedback, in.Outcome.S, in.Outcome.Cost)
	c := methodCard(in, clinic.CardExperience, 3000+slot, text)
	c.Ask, c.Tests = returned(in)
	switch {
	case in.Outcome.Pass:
		c.Diagnosis, c.Grade = dx, string(grader.HighYield)
	case dx != "" && !strings.HasPrefix(dx, "undifferentiated"):
		c.Avoid, c.Grade = dx, string(grader.LowYield)
		c.Ask, c.Tests = nil, nil // what a failed episode did is no advice
	}
	return c
}
