package evolver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// Mem0 is Mem0's two-phase memory (Chhikara, Khant, Aryan, Singh, Yadav
// 2025, "Mem0: Building Production-Ready AI Agents with Scalable Long-Term
// Memory", arXiv 2504.19413, the extraction and update phases; section not
// verified):
// extraction turns the new interaction into candidate memories (salient
// facts); update compares each candidate with the most similar stored
// memories and applies one operation: ADD a new memory, UPDATE an existing
// one the candidate augments or corrects, DELETE one it contradicts, or
// NOOP. The prompt never changes; the memories are retrieved by similarity.
//
// With the evolver role a model extracts the facts and picks each
// operation. The mechanical form extracts one fact per episode (what
// happened to this presentation: the diagnosis that held, or the one that
// failed and, with write-back, the correct one) and picks the operation by
// rule: a memory about the same presentation (similarity at least
// evolver.same_at) that says the same is a NOOP, or an UPDATE when the fact
// adds questions or tests; one it corrects is an UPDATE; one it refutes with
// nothing to replace it is a DELETE; anything else is an ADD. An UPDATE
// evicts the old card and writes the new one under a new ID, so memory as
// of any earlier episode still shows the old one.
type Mem0 struct {
	Model Model
	Bank  Bank
}

// mem0Fact is one extracted memory.
type mem0Fact struct {
	Text      string   `json:"text"`
	Diagnosis string   `json:"diagnosis,omitempty"`
	Avoid     string   `json:"avoid,omitempty"`
	Ask       []string `json:"ask,omitempty"`
	Tests     []string `json:"tests,omitempty"`
}

// Mem0 operations (the update phase; section not verified).
const (
	Mem0Add    = "ADD"
	Mem0Update = "UPDATE"
	Mem0Delete = "DELETE"
	Mem0Noop   = "NOOP"
)

// mem0Op is the update phase's decision for one fact.
type mem0Op struct {
	Op   string `json:"op"`
	ID   string `json:"id,omitempty"`   // the memory updated or deleted
	Text string `json:"text,omitempty"` // an update's new text
}

// mem0Similar is how many stored memories a fact is compared with (clinevo's
// own choice; Mem0 retrieves "the top s" similar memories).
const mem0Similar = 5

// Evolve extracts the episode's facts and consolidates each with memory.
func (m Mem0) Evolve(ctx context.Context, cfg settings.Evolver, in Input, truth *grader.Key, rules []clinic.Rule) (Output, error) {
	out := Output{Rules: append([]clinic.Rule(nil), rules...)}
	if !in.WriteCards {
		return out, nil
	}
	facts, err := m.extract(ctx, in, truth)
	if err != nil {
		return Output{}, err
	}
	var cards []clinic.Card
	for i, f := range facts {
		var hits []clinic.Card
		if m.Bank != nil {
			found, err := m.Bank.Search(ctx, in.Opening+" "+f.Text, mem0Similar, clinic.CardMemory)
			if err != nil {
				return Output{}, fmt.Errorf("mem0: %w", err)
			}
			for _, h := range found {
				if h.Score >= cfg.SameAt && !slices.Contains(out.Evict, h.Card.ID) {
					hits = append(hits, h.Card)
				}
			}
		}
		op, err := m.decide(ctx, f, hits)
		if err != nil {
			return Output{}, err
		}
		c := methodCard(in, clinic.CardMemory, 2000+i, f.Text)
		c.Diagnosis, c.Avoid, c.Ask, c.Tests = f.Diagnosis, f.Avoid, f.Ask, f.Tests
		switch op.Op {
		case Mem0Add:
			cards = append(cards, c)
		case Mem0Update:
			old := byID(hits, op.ID)
			if old == nil {
				cards = append(cards, c) // an update of a memory not shown: the fact is new
				break
			}
			if op.Text != "" {
				c.Text, c.SearchText = op.Text, in.Opening+" "+op.Text
			}
			c.Ask, c.Tests = union(old.Ask, f.Ask), union(old.Tests, f.Tests)
			if c.Avoid == "" && old.Diagnosis == c.Diagnosis {
				c.Avoid = old.Avoid // what the memory warned against still holds
			}
			out.Evict = append(out.Evict, old.ID)
			cards = append(cards, c)
		case Mem0Delete:
			if byID(hits, op.ID) != nil {
				out.Evict = append(out.Evict, op.ID)
			}
		}
		out.Edits = append(out.Edits, strings.TrimSpace("mem0 "+op.Op+" "+op.ID))
	}
	out.Cards, out.Skipped = screened(cfg, in, truth, cards)
	return out, nil
}

// extract is the extraction phase: the model's facts, or the mechanical one.
func (m Mem0) extract(ctx context.Context, in Input, truth *grader.Key) ([]mem0Fact, error) {
	var reply struct {
		Facts []mem0Fact `json:"facts"`
	}
	req := struct {
		Presentation string
		Transcript   []string
		Correct      string
	}{in.Opening, transcriptLines(in), ""}
	if truth != nil {
		req.Correct = truth.Diagnosis
	}
	ok, err := ask(ctx, m.Model, "mem0_extract", req, &reply)
	if err != nil || ok {
		return reply.Facts, err
	}
	dx := predicted(in)
	ask, tests := returned(in)
	success := in.Outcome.Pass
	if truth != nil {
		success = truth.DiagnosisGrade >= 0.75
	}
	f := mem0Fact{Ask: ask, Tests: tests}
	switch {
	case success && dx != "":
		f.Diagnosis = dx
		f.Text = fmt.Sprintf("%s: %s held; asked %s; tests %s", in.Opening, dx, list(ask), list(tests))
	case truth != nil && truth.Diagnosis != "":
		f.Diagnosis, f.Avoid = truth.Diagnosis, dx
		f.Text = fmt.Sprintf("%s: not %s but %s", in.Opening, orNone(dx), truth.Diagnosis)
	case dx != "" && !strings.HasPrefix(dx, "undifferentiated"):
		f.Avoid, f.Ask, f.Tests = dx, nil, nil
		f.Text = fmt.Sprintf("%s: %s did not hold", in.Opening, dx)
	default:
		return nil, nil
	}
	return []mem0Fact{f}, nil
}

// decide is the update phase for one fact against the similar memories.
func (m Mem0) decide(ctx context.Context, f mem0Fact, hits []clinic.Card) (mem0Op, error) {
	if len(hits) == 0 {
		return mem0Op{Op: Mem0Add}, nil
	}
	type shown struct{ ID, Text string }
	req := struct {
		Fact     mem0Fact
		Memories []shown
	}{Fact: f}
	for _, h := range hits {
		req.Memories = append(req.Memories, shown{h.ID, h.Text})
	}
	var op mem0Op
	ok, err := ask(ctx, m.Model, "mem0_update", req, &op)
	if err != nil {
		return mem0Op{}, err
	}
	if ok {
		op.Op = strings.ToUpper(strings.TrimSpace(op.Op))
		if slices.Contains([]string{Mem0Add, Mem0Update, Mem0Delete, Mem0Noop}, op.Op) {
			return op, nil
		}
	}
	return mem0Rule(f, hits), nil
}

// mem0Rule is the mechanical update phase (see Mem0).
func mem0Rule(f mem0Fact, hits []clinic.Card) mem0Op {
	for _, h := range hits {
		switch {
		case f.Diagnosis != "" && h.Diagnosis == f.Diagnosis && (f.Avoid == "" || h.Avoid == f.Avoid):
			if len(union(h.Ask, f.Ask)) > len(h.Ask) || len(union(h.Tests, f.Tests)) > len(h.Tests) {
				return mem0Op{Op: Mem0Update, ID: h.ID}
			}
			return mem0Op{Op: Mem0Noop, ID: h.ID}
		case f.Diagnosis == "" && h.Avoid == f.Avoid && h.Diagnosis == "":
			return mem0Op{Op: Mem0Noop, ID: h.ID}
		case f.Diagnosis != "" && (h.Diagnosis != "" || h.Avoid == f.Diagnosis):
			return mem0Op{Op: Mem0Update, ID: h.ID} // a correction of what the memory said
		case f.Diagnosis == "" && f.Avoid != "" && h.Diagnosis == f.Avoid:
			return mem0Op{Op: Mem0Delete, ID: h.ID} // refuted, nothing to replace it
		}
	}
	return mem0Op{Op: Mem0Add}
}

func byID(cs []clinic.Card, id string) *clinic.Card {
	for i := range cs {
		if cs[i].ID == id {
			return &cs[i]
		}
	}
	return nil
}

// union is a followed by the items of b it lacks.
func union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
