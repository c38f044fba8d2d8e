package runner_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor/textbook"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// EvoTest on a short stream: every episode scores the node it played, the
// parent is the UCB's choice among all nodes (not always the latest), the
// next rule book is the parent's with this episode's edits, and the next
// doctor temperature is EvoTestHyper's from the parent's.
func TestEvoTestEvolvesFromTheUCBParent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := deps(t, false)
	d.Settings.Evolver.Method = settings.MethodEvoTest
	doc := d.Settings.Roles["doctor"]
	doc.Model = textbook.Name // a doctor that passes some episodes, so books grow
	d.Settings.Roles["doctor"] = doc
	books := map[int][]clinic.Rule{}
	d.EvoTestBook = func(_ context.Context, n int) ([]clinic.Rule, error) {
		b, ok := books[n]
		if !ok {
			return nil, fmt.Errorf("no rule book stored for episode %d", n)
		}
		return b, nil
	}
	// A seed book whose rules hold for some presentations: a failing
	// episode drops those in force for its own, so nodes' books differ.
	var seed []clinic.Rule
	for i, w := range []string{"pain", "because", "help", "back", "itchy", "feel"} {
		seed = append(seed, clinic.Rule{ID: fmt.Sprintf("seed-%d", i), Text: clinic.RuleDirective{Verb: clinic.VerbAsk, Target: "onset " + w, When: w}.String()})
	}
	var (
		tree          *evolver.EvoTestTree
		rules         = seed
		temp          *float64
		jumps, differ int
		temps         = map[float64]bool{}
	)
	for i, c := range synth.Generate(7)["stream"][:30] {
		m := runner.Meta{RunID: "r", EpisodeID: fmt.Sprintf("r/e%d-%s", i+1, c.ID), Number: i + 1, Pass: 1, Stage: 1, Rules: runner.RuleTexts(rules), EvoTest: tree}
		de := d
		de.Settings = runner.WithDoctorTemperature(d.Settings, temp)
		tr, err := runner.Play(ctx, c, de, m)
		require.NoError(t, err)
		l, err := runner.Learn(ctx, de, c, tr, m, rules)
		require.NoError(t, err)
		in, err := runner.EvolverInput(c, tr, l.Grade, m, de)
		require.NoError(t, err)

		// The tree as the episode left it, before the child: computed here.
		var nodes []evolver.EvoTestNode
		played := 0
		if tree == nil {
			nodes = []evolver.EvoTestNode{{Rules: rules, Hyper: evolver.Hyper{Temperature: float64(d.Settings.Roles["doctor"].Temperature)}, Parent: -1}}
		} else {
			nodes, played = slices.Clone(tree.Nodes), tree.Played
		}
		p := &nodes[played]
		p.Return = (p.Return*float64(p.Plays) + in.Outcome.S) / float64(p.Plays+1)
		p.Plays++
		parent := evolver.EvoTestSelect(nodes)
		require.NotNil(t, l.EvoTest, "episode %d", i+1)
		require.Len(t, l.EvoTest.Nodes, len(nodes)+1, "episode %d adds one configuration", i+1)
		child := l.EvoTest.Nodes[l.EvoTest.Played]
		require.Equal(t, parent, child.Parent, "episode %d: the parent is the UCB's choice", i+1)
		require.Equal(t, i+1, child.Episode)
		require.Nil(t, child.Rules, "a child's rule book is not stored in the tree")
		require.InDelta(t, p.Return, l.EvoTest.Nodes[played].Return, 1e-12, "the played node's return is its mean S")

		parentBook := nodes[0].Rules
		if parent > 0 {
			parentBook = books[nodes[parent].Episode]
		}
		want, err := evolver.EvoTest{}.Evolve(ctx, d.Settings.Evolver, in, runner.WriteBack(d.Bench, &c, tr, d.Settings), parentBook)
		require.NoError(t, err)
		require.Equal(t, want.Rules, l.Rules, "episode %d: the parent's rule book plus this episode's edits", i+1)
		if parent != played {
			jumps++
			latest, err := evolver.EvoTest{}.Evolve(ctx, d.Settings.Evolver, in, runner.WriteBack(d.Bench, &c, tr, d.Settings), rules)
			require.NoError(t, err)
			if !slices.EqualFunc(latest.Rules, l.Rules, func(a, b clinic.Rule) bool { return a.Text == b.Text }) {
				differ++
			}
		}

		wantT := evolver.EvoTestHyper(nodes[parent].Hyper, in.Outcome.Pass, nil).Temperature
		require.NotNil(t, l.Temperature)
		require.InDelta(t, wantT, *l.Temperature, 1e-12, "episode %d: the next doctor's temperature", i+1)
		require.InDelta(t, wantT, child.Hyper.Temperature, 1e-12)
		temps[*l.Temperature] = true

		books[i+1], tree, rules, temp = l.Rules, l.EvoTest, l.Rules, l.Temperature
	}
	require.Positive(t, jumps, "UCB chose an earlier node over the latest at least once")
	require.Positive(t, differ, "and evolving from it gave another rule book than evolving from the latest would")
	require.Greater(t, len(temps), 1, "the temperature changed over the stream")
}
