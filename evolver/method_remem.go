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

// ReMem is Evo-Memory's think–act–refine agent (Wei et al. 2025, §3, ReMem):
// beside thinking and acting, the agent has a third operation, Refine, that
// reasons about its memory and rewrites it: it keeps the experiences that
// helped, prunes the ones that misled, and reorganises what is left, so
// memory evolves with use instead of only growing.
//
// In clinevo the doctor's loop thinks and acts with the experiences it
// retrieved (ExpRAG's experience cards); at the end of the episode ReMem
// refines over exactly those experiences. With the evolver role the model
// thinks over the episode and the experiences and says which to prune and
// how to word the new experience. The mechanical form prunes a retrieved
// experience that recommended the diagnosis this episode got wrong, and
// merges the new experience with a retrieved one about the same
// presentation (similarity at least evolver.same_at) that says the same,
// keeping one card. Gap: the refine step runs once per episode, after the
// doctor's last turn, not between its turns.
type ReMem struct {
	Model Model
	Bank  Bank
}

type rememReply struct {
	Think  string   `json:"think"`
	Prune  []string `json:"prune"`
	Memory string   `json:"memory"` // the new experience as the model words it ("" keeps the template's)
}

// Evolve writes the episode's experience and refines the retrieved ones.
func (r ReMem) Evolve(ctx context.Context, cfg settings.Evolver, in Input, truth *grader.Key, rules []clinic.Rule) (Output, error) {
	out := Output{Rules: append([]clinic.Rule(nil), rules...)}
	if !in.WriteCards {
		return out, nil
	}
	exp := experience(in, 0)
	used, err := r.retrieved(ctx, in)
	if err != nil {
		return Output{}, err
	}
	type shown struct{ ID, Text string }
	req := struct {
		Experience string
		Memories   []shown
	}{Experience: exp.Text}
	for _, c := range used {
		req.Memories = append(req.Memories, shown{c.ID, c.Text})
	}
	var reply rememReply
	ok, err := ask(ctx, r.Model, "remem_refine", req, &reply)
	if err != nil {
		return Output{}, err
	}
	if ok {
		for _, id := range reply.Prune {
			if byID(used, id) != nil && !slices.Contains(out.Evict, id) {
				out.Evict = append(out.Evict, id)
			}
		}
		if strings.TrimSpace(reply.Memory) != "" {
			exp.Text, exp.SearchText = reply.Memory, in.Opening+" "+reply.Memory
		}
	} else {
		out.Evict = rememRefine(cfg, exp, used, predicted(in), in.Outcome.Pass)
	}
	for _, id := range out.Evict {
		out.Edits = append(out.Edits, "remem prune "+id)
	}
	out.Cards, out.Skipped = screened(cfg, in, truth, []clinic.Card{exp})
	return out, nil
}

// retrieved are the experience cards the doctor's loop retrieved in this
// episode, as the bank holds them before it.
func (r ReMem) retrieved(ctx context.Context, in Input) ([]clinic.Card, error) {
	if r.Bank == nil {
		return nil, nil
	}
	var ids []string
	for _, ev := range in.Events {
		for _, id := range ev.RetrievedCards {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	cards, err := r.Bank.Cards(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("remem: %w", err)
	}
	var out []clinic.Card
	for _, c := range cards {
		if c.Kind == clinic.CardExperience {
			out = append(out, c)
		}
	}
	return out, nil
}

// rememRefine is the mechanical refine step (see ReMem): the IDs to prune.
func rememRefine(cfg settings.Evolver, exp clinic.Card, used []clinic.Card, dx string, pass bool) []string {
	var prune []string
	for _, c := range used {
		misled := !pass && dx != "" && c.Diagnosis == dx
		same := similar(c.Context, exp.Context) >= cfg.SameAt && c.Diagnosis == exp.Diagnosis && c.Avoid == exp.Avoid
		if misled || same {
			prune = append(prune, c.ID)
		}
	}
	return prune
}
