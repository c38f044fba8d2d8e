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

// ReMem is Evo-Memory's think–act–refine agent (Wei, Sachdeva, Coleman, He,
// Bei, Ning, Ai, Li, He, Chi, Wang, Chen, Pereira, Kang, Cheng 2025,
// "Evo-Memory: Benchmarking LLM Agent Test-time Learning with Self-Evolving
// Memory", arXiv 2511.20857, ReMem; section not verified): beside thinking
// and acting, the agent has a third operation, Refine, that reasons about
// its memory and rewrites it: it keeps the experiences that helped, prunes
// the ones that mislead, and reorganises what is left, so memory evolves
// with use instead of only growing. Refine is interleaved with the task's
// steps, not run only after the task.
//
// In clinevo the doctor's loop thinks and acts with the experiences it
// retrieved (ExpRAG's experience cards), and ReMem refines twice over:
//
//   - between turns (RefineTurn): when the doctor chooses to. A doctor that
//     chooses (actor.RefineChooser, the model doctor) is offered refine
//     beside acting at every turn after the first (clinic.DoctorView.MayRefine)
//     and, when it asks, the refine step runs and the doctor decides again
//     with the refined memory in the same turn (runner.DecideTurn); for a
//     doctor that does not choose (the built-in ones), the mechanical refine
//     step chooses before every action and prunes only on evidence (below).
//     What it prunes is recorded on the turn's event (PrunedCards), is no
//     longer retrieved for the rest of the episode, and is evicted at the
//     episode's number when the episode is learnt from;
//   - after the last turn (Evolve): over the experiences still in use, given
//     the outcome: it prunes, merges experiences into one and rewrites
//     experiences (a merge or a rewrite is a new card written by the
//     episode in place of the ones it evicts, kept only when it passes the
//     leak screen), and it writes the episode's own experience.
//
// With the evolver role the model thinks over the episode and the
// experiences and says which to prune, merge and rewrite (and, after the
// last turn, how to word the new experience). The mechanical form, between
// turns, prunes an experience whose advice the doctor followed in this
// episode and that yielded nothing (a question it recommended went
// unanswered, a test it recommended did not come back), and the older of
// two retrieved experiences that say the same about the same presentation
// (similarity at least evolver.same_at); after the last turn it prunes a
// retrieved experience that recommended the diagnosis this episode got
// wrong, and merges into the new experience a retrieved one about the same
// presentation that says the same (the new card keeps both's questions and
// tests). It does not rewrite.
type ReMem struct {
	Model Model
	Bank  Bank
}

type rememReply struct {
	Think   string         `json:"think"`
	Prune   []string       `json:"prune"`
	Merge   []rememMerge   `json:"merge"`
	Rewrite []rememRewrite `json:"rewrite"`
	Memory  string         `json:"memory"` // the new experience as the model words it ("" keeps the template's)
}

// rememMerge is experiences the refine step merges into one, with the
// merged text.
type rememMerge struct {
	IDs  []string `json:"ids"`
	Text string   `json:"text"`
}

// rememRewrite is an experience the refine step rewords.
type rememRewrite struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// replacement is a card a refine step writes in place of the cards it
// evicts (a merge or a rewrite): the evictions hold only when the card
// passes the leak screen, so a refine never loses what it could not store.
type replacement struct {
	card    clinic.Card
	replace []string
	edit    string
}

// Evolve writes the episode's experience and refines the retrieved ones:
// what the turns pruned is evicted, then the last refine prunes, merges and
// rewrites the experiences still in use.
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
	out.Evict, out.Edits = prunedInTurns(in.Events)
	used = slices.DeleteFunc(used, func(c clinic.Card) bool { return slices.Contains(out.Evict, c.ID) })
	prune, repl, err := r.refine(ctx, cfg, in, &exp, used)
	if err != nil {
		return Output{}, err
	}
	for _, id := range prune {
		out.Evict = append(out.Evict, id)
		out.Edits = append(out.Edits, "remem prune "+id)
	}
	out.Cards, out.Skipped = screened(cfg, in, truth, []clinic.Card{exp})
	for _, rp := range repl {
		kept, skipped := screened(cfg, in, truth, []clinic.Card{rp.card})
		out.Skipped = append(out.Skipped, skipped...)
		if len(kept) == 1 {
			out.Cards = append(out.Cards, kept[0])
			out.Evict = append(out.Evict, rp.replace...)
			out.Edits = append(out.Edits, rp.edit)
		}
	}
	return out, nil
}

// prunedInTurns are the cards the refine steps between turns pruned, to be
// evicted with the episode, and their log entries.
func prunedInTurns(events []clinic.Event) (evict, edits []string) {
	for _, ev := range events {
		for _, id := range ev.PrunedCards {
			if !slices.Contains(evict, id) {
				evict = append(evict, id)
				edits = append(edits, fmt.Sprintf("remem prune %s (turn %d)", id, ev.Turn))
			}
		}
	}
	return evict, edits
}

// refine is the refine step after the last turn over the experiences still
// in use: the IDs to prune and the merged or rewritten cards, exp reworded
// by the model or, mechanically, with what it absorbed (see ReMem).
func (r ReMem) refine(ctx context.Context, cfg settings.Evolver, in Input, exp *clinic.Card, used []clinic.Card) ([]string, []replacement, error) {
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
	if err != nil || !ok {
		return rememRefine(cfg, exp, used, predicted(in), in.Outcome.Pass), nil, err
	}
	if strings.TrimSpace(reply.Memory) != "" {
		exp.Text, exp.SearchText = reply.Memory, in.Opening+" "+reply.Memory
	}
	var prune, touched []string
	for _, id := range reply.Prune {
		if byID(used, id) != nil && !slices.Contains(prune, id) {
			prune = append(prune, id)
		}
	}
	touched = append(touched, prune...)
	repl := rememMerges(in, used, reply.Merge, &touched)
	return prune, append(repl, rememRewrites(in, used, reply.Rewrite, &touched)...), nil
}

// rememMerges are the model's merges of two or more experiences in use,
// none touched by another operation: one card in place of them, with their
// advice together and the model's text.
func rememMerges(in Input, used []clinic.Card, ms []rememMerge, touched *[]string) []replacement {
	var out []replacement
	for i, m := range ms {
		var from []clinic.Card
		for _, id := range m.IDs {
			if c := byID(used, id); c != nil && !slices.Contains(*touched, id) && !slices.ContainsFunc(from, func(f clinic.Card) bool { return f.ID == id }) {
				from = append(from, *c)
			}
		}
		if len(from) < 2 || strings.TrimSpace(m.Text) == "" {
			continue
		}
		c := refinedCard(in, from[0], 6000+i, m.Text)
		for _, f := range from[1:] {
			c.Ask, c.Tests = union(c.Ask, f.Ask), union(c.Tests, f.Tests)
		}
		ids := make([]string, len(from))
		for j, f := range from {
			ids[j] = f.ID
			*touched = append(*touched, f.ID)
		}
		out = append(out, replacement{card: c, replace: ids, edit: "remem merge " + strings.Join(ids, " + ") + " into " + c.ID})
	}
	return out
}

// rememRewrites are the model's rewordings of experiences in use, none
// touched by another operation: a card with the new text in place of each.
func rememRewrites(in Input, used []clinic.Card, rs []rememRewrite, touched *[]string) []replacement {
	var out []replacement
	for i, rw := range rs {
		c := byID(used, rw.ID)
		if c == nil || slices.Contains(*touched, rw.ID) || strings.TrimSpace(rw.Text) == "" {
			continue
		}
		*touched = append(*touched, rw.ID)
		n := refinedCard(in, *c, 7000+i, rw.Text)
		out = append(out, replacement{card: n, replace: []string{rw.ID}, edit: "remem rewrite " + rw.ID + " as " + n.ID})
	}
	return out
}

// refinedCard is a refine step's new version of experience c with text: its
// advice and presentation kept, written by this episode (a deterministic ID
// of the episode and slot), so memory as of the episode before still holds
// the old one.
func refinedCard(in Input, c clinic.Card, slot int, text string) clinic.Card {
	n := methodCard(in, clinic.CardExperience, slot, text)
	n.Context, n.SearchText = c.Context, c.Context+" "+text
	n.Diagnosis, n.Avoid, n.Ask, n.Tests, n.Grade = c.Diagnosis, c.Avoid, c.Ask, c.Tests, c.Grade
	return n
}

// retrieved are the experience cards the doctor's loop retrieved in this
// episode, as the bank holds them before it.
func (r ReMem) retrieved(ctx context.Context, in Input) ([]clinic.Card, error) {
	return r.experiences(ctx, in.Events)
}

// experiences are the experience cards retrieved in events, as the bank
// holds them before the episode, in the order first retrieved.
func (r ReMem) experiences(ctx context.Context, events []clinic.Event) ([]clinic.Card, error) {
	if r.Bank == nil {
		return nil, nil
	}
	var ids []string
	for _, ev := range events {
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

// rememRefine is the mechanical refine step after the last turn (see
// ReMem): the IDs to evict, an experience that misled pruned, one the new
// experience repeats merged into it (exp takes its questions and tests).
func rememRefine(cfg settings.Evolver, exp *clinic.Card, used []clinic.Card, dx string, pass bool) []string {
	var evict []string
	for _, c := range used {
		misled := !pass && dx != "" && c.Diagnosis == dx
		same := similar(c.Context, exp.Context) >= cfg.SameAt && c.Diagnosis == exp.Diagnosis && c.Avoid == exp.Avoid
		if same && !misled {
			exp.Ask, exp.Tests = union(exp.Ask, c.Ask), union(exp.Tests, c.Tests)
		}
		if misled || same {
			evict = append(evict, c.ID)
		}
	}
	return evict
}

// Turn is what ReMem's refine step between two turns reads: the episode so
// far (the presentation and the events of the turns played), before the
// doctor's next decision.
type Turn struct {
	Opening string
	Events  []clinic.Event
}

type rememTurnReply struct {
	Think string   `json:"think"`
	Prune []string `json:"prune"`
}

// RefineTurn is ReMem's refine step between turns (see ReMem): the IDs of
// the experiences retrieved so far in the episode, and not pruned before,
// to prune now; none before the first turn or when nothing was retrieved.
// It decides from the episode's stored events alone, so a turn re-run after
// a crash asks the same question (and the caller stores the answer before
// using it, the first write winning, as it does the doctor's decision).
func (r ReMem) RefineTurn(ctx context.Context, cfg settings.Evolver, t Turn) ([]string, error) {
	var gone []string
	for _, ev := range t.Events {
		gone = append(gone, ev.PrunedCards...)
	}
	used, err := r.experiences(ctx, t.Events)
	if err != nil {
		return nil, err
	}
	used = slices.DeleteFunc(used, func(c clinic.Card) bool { return slices.Contains(gone, c.ID) })
	if len(used) == 0 {
		return nil, nil
	}
	type shown struct{ ID, Text string }
	req := struct {
		Presentation string
		SoFar        []string
		Memories     []shown
	}{Presentation: t.Opening, SoFar: turnLines(t.Events)}
	for _, c := range used {
		req.Memories = append(req.Memories, shown{c.ID, c.Text})
	}
	var reply rememTurnReply
	ok, err := ask(ctx, r.Model, "remem_refine_turn", req, &reply)
	if err != nil {
		return nil, err
	}
	if !ok {
		return rememRefineTurn(cfg, used, t.Events), nil
	}
	var prune []string
	for _, id := range reply.Prune {
		if byID(used, id) != nil && !slices.Contains(prune, id) {
			prune = append(prune, id)
		}
	}
	return prune, nil
}

// rememRefineTurn is the mechanical refine step between turns (see ReMem):
// an experience whose advice was followed and yielded nothing, and the
// older of two that say the same about the same presentation.
func rememRefineTurn(cfg settings.Evolver, used []clinic.Card, events []clinic.Event) []string {
	var prune []string
	for _, c := range used {
		if fruitless(c, events) {
			prune = append(prune, c.ID)
		}
	}
	for i, c := range used {
		for j, d := range used {
			if i == j || slices.Contains(prune, c.ID) || slices.Contains(prune, d.ID) {
				continue
			}
			same := c.Diagnosis == d.Diagnosis && c.Avoid == d.Avoid && similar(c.Context, d.Context) >= cfg.SameAt
			older := c.CreatedEpisode < d.CreatedEpisode || (c.CreatedEpisode == d.CreatedEpisode && c.ID < d.ID)
			if same && older {
				prune = append(prune, c.ID)
			}
		}
	}
	return prune
}

// fruitless says whether the doctor followed an experience's advice in
// events and it yielded nothing: a topic it recommended was asked and the
// patient told nothing, or a test it recommended was ordered and did not come back.
func fruitless(c clinic.Card, events []clinic.Event) bool {
	for _, ev := range events {
		switch {
		case ev.Action == clinic.Ask && len(ev.RevealedFacts) == 0 && !ev.Generated:
			for _, t := range TopicsOf(ev) {
				if slices.Contains(c.Ask, t) {
					return true
				}
			}
		case ev.Action == clinic.RequestTest && ev.Status != clinic.StatusReturned:
			if ev.Test != "" && slices.Contains(c.Tests, ev.Test) {
				return true
			}
		}
	}
	return false
}

// turnLines are the turns played so far as short lines, every outcome
// shown (what a refine between turns reasons over).
func turnLines(events []clinic.Event) []string {
	var lines []string
	for _, ev := range events {
		switch ev.Action {
		case clinic.Ask:
			lines = append(lines, fmt.Sprintf("asked %s: %s (%s)", strings.Join(TopicsOf(ev), "/"), ev.Reply, ev.Status))
		case clinic.RequestTest:
			lines = append(lines, fmt.Sprintf("test %s: %s (%s)", ev.Test, ev.Reply, ev.Status))
		default:
			lines = append(lines, fmt.Sprintf("%s (%s)", ev.Action, ev.Status))
		}
	}
	return lines
}
