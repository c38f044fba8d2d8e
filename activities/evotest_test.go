package activities_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// tempDoctor is the built-in doctor built from role settings: it records
// the temperature a model-backed doctor would send with each request.
type tempDoctor struct {
	temp float32
	seen *[]float32
}

func (d tempDoctor) Decide(ctx context.Context, v clinic.DoctorView) (actor.Decision, error) {
	*d.seen = append(*d.seen, d.temp)
	return actor.Builtin{}.Decide(ctx, v)
}

// Under EvoTest, the temperature Learn chose reaches the next episode's
// doctor requests, it is the one EvoTestHyper gives from the UCB parent's,
// and the tree is stored with each episode's proposal (readable as of that
// episode). A batch of two episodes scores the one configuration both
// played and evolves one child.
func TestEvoTestTemperatureReachesTheNextDoctor(t *testing.T) {
	ctx := context.Background()
	a, _, _, in := setup(t)
	var seen []float32
	a.Roles = func(s settings.Settings) (runner.Roles, error) {
		r := runner.BuiltinRoles()
		r.Doctor = tempDoctor{temp: s.Roles["doctor"].Temperature, seen: &seen}
		return r, nil
	}
	in.Settings.Evolver.Method = settings.MethodEvoTest
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	learn := func(refs []activities.EpisodeRef, book []clinic.Rule) activities.EvolveOutput {
		v, err := env.ExecuteActivity(a.Learn, activities.EvolveInput{Run: in.Run, Pass: 1, Episodes: refs, RuleBook: book, Settings: in.Settings})
		require.NoError(t, err)
		var out activities.EvolveOutput
		require.NoError(t, v.Get(&out))
		return out
	}
	var (
		temp  *float64
		book  []clinic.Rule
		temps = map[float64]bool{}
		n     int
	)
	episode := func(temp *float64, book []clinic.Rule) activities.EpisodeRef {
		n++
		e := in.EpisodeInput
		e.CaseID, e.Index, e.Number = fmt.Sprintf("stream-%04d", n), n, n
		e.EpisodeID = contract.EpisodeWorkflowID(e.Run, 1, 1, n, e.CaseID)
		e.Temperature, e.Rules = temp, runner.RuleTexts(book)
		seen = nil
		for turn := 0; ; turn++ {
			ti := activities.TurnInput{EpisodeInput: e, Turn: turn}
			_, err := a.Decide(ctx, ti)
			require.NoError(t, err)
			st, err := a.Step(ctx, ti)
			require.NoError(t, err)
			if st.Done {
				break
			}
		}
		_, err := a.Score(ctx, e)
		require.NoError(t, err)
		want := in.Settings.Roles["doctor"].Temperature
		if temp != nil {
			want = float32(*temp)
		}
		require.NotEmpty(t, seen)
		for _, got := range seen {
			require.Equal(t, want, got, "episode %d: the doctor samples at the temperature chosen for it", n)
		}
		return e.Ref()
	}
	for i := range 6 {
		ref := episode(temp, book)
		out := learn([]activities.EpisodeRef{ref}, book)
		require.NotNil(t, out.Temperature)
		var prop evolver.Output
		require.NoError(t, a.Results.Proposal(ctx, ref.EpisodeID, &prop))
		require.NotNil(t, prop.EvoTest, "the tree is stored with the episode's proposal")
		require.Len(t, prop.EvoTest.Nodes, i+2)
		child := prop.EvoTest.Nodes[prop.EvoTest.Played]
		tr, err := a.Results.Trace(ctx, ref.EpisodeID)
		require.NoError(t, err)
		want := evolver.EvoTestHyper(prop.EvoTest.Nodes[child.Parent].Hyper, grader.OutcomeOf(*tr.Scores).Pass, nil)
		require.InDelta(t, want.Temperature, *out.Temperature, 1e-12)
		require.Equal(t, out.RuleBook, prop.Rules)
		require.Equal(t, out, learn([]activities.EpisodeRef{ref}, book), "a re-run learns nothing new")
		recs, err := a.Results.Records(ctx, in.Run)
		require.NoError(t, err)
		require.Len(t, recs, i+1)
		require.Equal(t, out.Temperature, recs[i].Temperature, "the record keeps the temperature with its rule book (what a restart continues with)")
		temps[*out.Temperature] = true
		temp, book = out.Temperature, out.RuleBook
	}
	require.Greater(t, len(temps), 1, "the temperature changed over the stream")

	var before evolver.Output
	require.NoError(t, a.Results.Proposal(ctx, contract.EpisodeWorkflowID(in.Run, 1, 1, n, fmt.Sprintf("stream-%04d", n)), &before))
	refs := []activities.EpisodeRef{episode(temp, book), episode(temp, book)}
	out := learn(refs, book)
	var first, last evolver.Output
	require.NoError(t, a.Results.Proposal(ctx, refs[0].EpisodeID, &first))
	require.NoError(t, a.Results.Proposal(ctx, refs[1].EpisodeID, &last))
	require.Len(t, first.EvoTest.Nodes, len(before.EvoTest.Nodes), "the batch's first episode only scores")
	require.Equal(t, book, first.Rules)
	require.Equal(t, 2, last.EvoTest.Nodes[before.EvoTest.Played].Plays, "both episodes played the batch's configuration")
	require.Len(t, last.EvoTest.Nodes, len(before.EvoTest.Nodes)+1)
	require.Equal(t, *out.Temperature, last.EvoTest.Nodes[last.EvoTest.Played].Hyper.Temperature)
}
