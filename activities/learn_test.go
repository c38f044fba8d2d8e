package activities_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
	"github.com/clinevo/clinevo/results"
)

// play plays and scores the stream episodes of cases in order, grading them
// when grade is set (as an EpisodeWorkflow that grades itself does), and
// returns their references.
func play(t *testing.T, a *activities.Activities, base activities.EpisodeInput, grade bool, cases ...string) []activities.EpisodeRef {
	t.Helper()
	ctx := context.Background()
	var refs []activities.EpisodeRef
	for i, id := range cases {
		in := base
		in.CaseID, in.Index, in.Number = id, i+1, i+1
		in.EpisodeID = contract.EpisodeWorkflowID(in.Run, 1, 1, i+1, id)
		for turn := 0; ; turn++ {
			ti := activities.TurnInput{EpisodeInput: in, Turn: turn}
			_, err := a.Decide(ctx, ti)
			require.NoError(t, err)
			st, err := a.Step(ctx, ti)
			require.NoError(t, err)
			if st.Done {
				break
			}
		}
		_, err := a.Score(ctx, in)
		require.NoError(t, err)
		if grade {
			_, err = a.Grade(ctx, activities.GradeInput{EpisodeRef: in.Ref(), Settings: in.Settings})
			require.NoError(t, err)
		}
		refs = append(refs, in.Ref())
	}
	return refs
}

// TestLearnEvolvesAndRecordsOnce runs Learn over a batch of two graded
// episodes, then again as a local activity re-run after a crash would: the
// second run returns the same rule book and lessons and leaves the same
// records and cards. Without a rule book or memory, Learn only records.
// Episodes played without grading themselves (by an older worker) are graded
// first.
func TestLearnEvolvesAndRecordsOnce(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name          string
		memory, grade bool
		rules         int
	}{
		{"rules and memory", true, true, 12},
		{"neither: records only", false, true, 0},
		{"ungraded episodes", true, false, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _, _, in := setup(t)
			bank, err := local.Open(ctx, filepath.Join(t.TempDir(), "memory.db"), memory.HashEmbedder{})
			require.NoError(t, err)
			t.Cleanup(func() { bank.Close() })
			a.Memory = bank
			in.Settings.Evolver.RuleBudget = tc.rules
			if tc.memory {
				in.MemoryRuns = []string{in.Run}
			}
			refs := play(t, a, in.EpisodeInput, tc.grade, "stream-0001", "stream-0002")
			var suite testsuite.WorkflowTestSuite
			env := suite.NewTestActivityEnvironment()
			env.RegisterActivity(a)
			learn := func() activities.EvolveOutput { // as the worker runs it: Evolve logs through the activity context
				v, err := env.ExecuteActivity(a.Learn, activities.EvolveInput{Run: in.Run, Pass: 1, Episodes: refs, MemoryRuns: in.MemoryRuns,
					Settings: in.Settings})
				require.NoError(t, err)
				var out activities.EvolveOutput
				require.NoError(t, v.Get(&out))
				return out
			}

			first := learn()
			recs, err := a.Results.Records(ctx, in.Run)
			require.NoError(t, err)
			require.Len(t, recs, 2, "each episode of the batch is recorded")
			for _, r := range recs {
				require.Len(t, r.Labels, r.Turns, "every action of %s is graded", r.EpisodeID)
				require.NotNil(t, r.RuleBook, "a stream record holds the rule book after its batch's Evolve (what stream restart reads)")
				require.Equal(t, len(first.RuleBook), len(r.RuleBook))
			}
			cards, err := bank.List(ctx, memory.Filter{Runs: []string{in.Run}})
			require.NoError(t, err)
			if tc.memory {
				require.Len(t, first.Lessons, 2)
				require.NotEmpty(t, cards, "the built-in evolver writes cards from write-back episodes")
				var written []string
				for _, l := range first.Lessons {
					written = append(written, l.Written...)
				}
				require.NotEmpty(t, written)
				var recorded []string
				for _, r := range recs {
					recorded = append(recorded, r.Written...)
				}
				require.Equal(t, written, recorded, "each record carries what learning from its episode wrote")
			} else {
				require.Empty(t, first.Lessons, "nothing to learn: the evolver is not asked")
				require.Empty(t, cards)
				var prop map[string]any
				require.ErrorIs(t, a.Results.Proposal(ctx, refs[0].EpisodeID, &prop), results.ErrNotFound)
			}

			require.Equal(t, first, learn(), "a re-run learns nothing new")
			recs2, err := a.Results.Records(ctx, in.Run)
			require.NoError(t, err)
			for i := range recs {
				recs[i].TimeMS, recs2[i].TimeMS = nil, nil // time spent is counted again by design
			}
			require.Equal(t, recs, recs2, "records are upserts")
			cards2, err := bank.List(ctx, memory.Filter{Runs: []string{in.Run}})
			require.NoError(t, err)
			require.Equal(t, cards, cards2, "cards have deterministic IDs")
		})
	}
}
