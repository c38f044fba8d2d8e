package runner_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// A method's deletion (Mem0's UPDATE and DELETE, ReMem's pruning) is an
// eviction at the episode that made it: memory as of the episode before
// still holds the old card, and as of the episode the new one alone.
func TestMethodDeletionsAreEvictionsAsOfTheEpisode(t *testing.T) {
	ctx := context.Background()
	d := deps(t, true)
	d.Settings.Evolver.Method = settings.MethodMem0
	card := func(id string, n int) clinic.Card {
		return clinic.Card{CardHint: clinic.CardHint{ID: id, Kind: clinic.CardMemory, Text: "chest pain uphill: " + id}, SearchText: "chest pain uphill",
			Bank: memory.BankOf(clinic.CardMemory), Run: "r", Pass: 1, Stage: 1, CreatedEpisode: n}
	}
	m1 := runner.Meta{RunID: "r", Number: 1, Pass: 1, Stage: 1, MemoryRuns: []string{"r"}}
	_, err := runner.Apply(ctx, d, evolver.Output{Cards: []clinic.Card{card("old", 1)}}, m1, grader.ProcessGrade{})
	require.NoError(t, err)
	m2 := m1
	m2.Number = 2
	l, err := runner.Apply(ctx, d, evolver.Output{Cards: []clinic.Card{card("new", 2)}, Evict: []string{"old"}}, m2, grader.ProcessGrade{})
	require.NoError(t, err)
	require.Equal(t, []string{"old"}, l.Evicted)
	ids := func(asOf int) []string {
		cs, err := d.Memory.List(ctx, memory.Filter{Runs: []string{"r"}, AsOf: asOf})
		require.NoError(t, err)
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	require.Equal(t, []string{"old"}, ids(1))
	require.Equal(t, []string{"new"}, ids(2))

	// The method reads memory as it was before the episode it learns from.
	evo, err := d.Method(runner.Meta{RunID: "r", Number: 2, MemoryRuns: []string{"r"}})
	require.NoError(t, err)
	require.IsType(t, evolver.Mem0{}, evo)
	bank := evo.(evolver.Mem0).Bank
	hits, err := bank.Search(ctx, "chest pain uphill", 5, clinic.CardMemory)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	require.Equal(t, "old", hits[0].Card.ID, "as of episode 1")
	got, err := bank.Cards(ctx, []string{"new", "old", "none"})
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "old", got[0].ID, "the card episode 2 wrote is not yet there; an unknown ID is left out")
}

// ReMem refines memory between the turns of an episode: a card pruned
// before a turn is not retrieved for the rest of that episode, and the
// episode's update evicts it at the episode's number, so memory as of the
// episode before still holds it.
func TestReMemRefinesWithinTheEpisode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := deps(t, true)
	d.Settings.Evolver.Method, d.Settings.Evolver.RuleBudget = settings.MethodReMem, 0
	cases := synth.Generate(7)["stream"][:40]
	pruning := 0
	for i, c := range cases {
		m := runner.Meta{RunID: "r", EpisodeID: fmt.Sprintf("r/e%d-%s", i+1, c.ID), Number: i + 1, Pass: 1, Stage: 1, MemoryRuns: []string{"r"}}
		tr, err := runner.Play(ctx, c, d, m)
		require.NoError(t, err)
		var gone []string
		for _, ev := range tr.Events {
			for _, id := range ev.RetrievedCards {
				require.NotContains(t, gone, id, "episode %d turn %d: a card pruned earlier in the episode was retrieved", i+1, ev.Turn)
			}
			require.True(t, ev.Turn > 0 || len(ev.PrunedCards) == 0, "nothing to refine before the first turn")
			gone = append(gone, ev.PrunedCards...)
		}
		l, err := runner.Learn(ctx, d, c, tr, m, nil)
		require.NoError(t, err)
		for _, id := range gone {
			require.Contains(t, l.Evicted, id)
			before, err := d.Memory.List(ctx, memory.Filter{Runs: []string{"r"}, AsOf: i})
			require.NoError(t, err)
			require.True(t, slices.ContainsFunc(before, func(c clinic.Card) bool { return c.ID == id }), "as of episode %d the pruned card is live", i)
			after, err := d.Memory.List(ctx, memory.Filter{Runs: []string{"r"}, AsOf: i + 1})
			require.NoError(t, err)
			require.False(t, slices.ContainsFunc(after, func(c clinic.Card) bool { return c.ID == id }), "as of episode %d it is evicted", i+1)
		}
		pruning += len(gone)
	}
	require.Positive(t, pruning, "the stream's episodes pruned between turns")
}

// copier is a scripted evolver that, like the model evolver of issue 38,
// appends the same rule to the book after every episode, with a fresh ID.
type copier struct{}

func (copier) Evolve(_ context.Context, _ settings.Evolver, in evolver.Input, _ *grader.Key, rules []clinic.Rule) (evolver.Output, error) {
	r := clinic.Rule{ID: fmt.Sprintf("r%d", in.Episode), Text: "Ask about onset and triggers first.", Citations: 1, Created: in.Episode, CitedAt: []int{in.Episode}}
	return evolver.Output{Rules: append(append([]clinic.Rule(nil), rules...), r)}, nil
}

// TestRuleBookHoldsARuleOnce plays a 20-episode stream whose evolver
// proposes the same rule after each episode: the book ends with that rule
// once, the first copy, carrying the 20 citations of its copies.
func TestRuleBookHoldsARuleOnce(t *testing.T) {
	d := deps(t, false)
	d.Roles.Evolver = copier{}
	_, rules, err := runner.PlayStream(context.Background(), d, synth.Generate(7)["stream"][:20], "r")
	require.NoError(t, err)
	require.Len(t, rules, 1)
	require.Equal(t, "r1", rules[0].ID, "the copy already in the book is kept")
	require.Equal(t, 20, rules[0].Citations, "1 from episode 1 and 1 from each of the 19 merged copies")
	require.Len(t, rules[0].CitedAt, 20)
}

// TestICLKeepsEveryExample: icl keeps every past episode (StreamBench's
// Algorithm 2, CL-Bench's full context), so with B_M = 2 four episodes leave
// four live examples; the transcripts method under the same budget keeps
// the two newest (4 written - 2 evicted).
func TestICLKeepsEveryExample(t *testing.T) {
	for _, c := range []struct {
		method string
		live   int
	}{{settings.MethodICL, 4}, {settings.MethodTranscripts, 2}} {
		t.Run(c.method, func(t *testing.T) {
			ctx := context.Background()
			d := deps(t, true)
			d.Settings.Evolver.Method, d.Settings.Evolver.MemoryBudget = c.method, 2
			for n := 1; n <= 4; n++ {
				card := clinic.Card{CardHint: clinic.CardHint{ID: fmt.Sprintf("c%d", n), Kind: clinic.CardExample, Text: "cough"}, SearchText: "cough",
					Bank: memory.BankOf(clinic.CardExample), Run: "r", Pass: 1, Stage: 1, CreatedEpisode: n}
				_, err := runner.Apply(ctx, d, evolver.Output{Cards: []clinic.Card{card}}, runner.Meta{RunID: "r", Number: n, Pass: 1, Stage: 1, MemoryRuns: []string{"r"}}, grader.ProcessGrade{})
				require.NoError(t, err)
			}
			live, err := d.Memory.List(ctx, memory.Filter{Runs: []string{"r"}, AsOf: 4})
			require.NoError(t, err)
			require.Len(t, live, c.live)
		})
	}
}

// choosing is a doctor that chooses when to refine (actor.RefineChooser):
// the built-in doctor's actions, and a refine asked whenever the view offers
// it, when ask is set.
type choosing struct {
	actor.Doctor
	ask              bool
	offered, refused *int
}

func (c choosing) ChoosesRefine() bool { return true }

func (c choosing) Decide(ctx context.Context, v clinic.DoctorView) (actor.Decision, error) {
	dec, err := c.Doctor.Decide(ctx, v)
	if v.MayRefine {
		*c.offered++
		dec.Output.Refine = c.ask
	} else {
		*c.refused++
	}
	return dec, err
}

// TestReMemDoctorChoosesWhenToRefine: a doctor that chooses (think, act or
// refine) is offered refine from its second turn on; when it never asks,
// nothing is pruned however much the mechanical step would prune; when it
// asks, the refine step runs, the doctor decides again in the same turn
// without the offer, and the turn says so.
func TestReMemDoctorChoosesWhenToRefine(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := synth.Generate(7)["stream"][:40]
	for _, ask := range []bool{false, true} {
		d := deps(t, true)
		d.Settings.Evolver.Method, d.Settings.Evolver.RuleBudget = settings.MethodReMem, 0
		base, err := d.Doctor()
		require.NoError(t, err)
		var offered, refused int
		d.Roles.Doctor = choosing{Doctor: base, ask: ask, offered: &offered, refused: &refused}
		pruned, refines, turns := 0, 0, 0
		for i, c := range cases {
			m := runner.Meta{RunID: "r", EpisodeID: fmt.Sprintf("r/e%d-%s", i+1, c.ID), Number: i + 1, Pass: 1, Stage: 1, MemoryRuns: []string{"r"}}
			tr, err := runner.Play(ctx, c, d, m)
			require.NoError(t, err)
			for _, ev := range tr.Events {
				pruned += len(ev.PrunedCards)
				turns++
				if slices.ContainsFunc(ev.Rationale, func(l string) bool { return strings.HasPrefix(l, "refine: ") }) {
					refines++
				}
			}
			_, err = runner.Learn(ctx, d, c, tr, m, nil)
			require.NoError(t, err)
		}
		firsts := len(cases) // every episode's first turn has nothing to refine
		require.Equal(t, turns-firsts, offered, "ask %v: offered at every turn after the first", ask)
		if !ask {
			require.Zero(t, pruned, "the doctor never chose to refine")
			require.Zero(t, refines)
			require.Equal(t, firsts, refused)
			continue
		}
		require.Positive(t, pruned, "the refine steps the doctor chose pruned")
		require.Equal(t, offered, refines, "every turn it asked, a refine ran")
		require.Equal(t, firsts+refines, refused, "after a refine the doctor decides again, without the offer")
	}
}
