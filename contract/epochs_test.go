package contract

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEpochsValidate: epochs are 0 (one play) to EpochsRange.Max, on the
// experiment or a held-out condition, and the error names the field.
func TestEpochsValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*ExperimentSpec)
		err  string // "" for none
	}{
		{"unset", func(*ExperimentSpec) {}, ""},
		{"three", func(e *ExperimentSpec) { e.Epochs = 3 }, ""},
		{"negative", func(e *ExperimentSpec) { e.Epochs = -1 }, "experiment x: epochs must be at least 1 and at most 100 (0: one play of each case), got -1"},
		{"too many", func(e *ExperimentSpec) { e.Epochs = 101 }, "epochs must be at least 1 and at most 100"},
		{"condition", func(e *ExperimentSpec) { e.Conditions[2].Epochs = 4 }, ""},
		{"condition negative", func(e *ExperimentSpec) { e.Conditions[2].Epochs = -2 }, "conditions[2] (H0): epochs must be"},
		{"on a stream", func(e *ExperimentSpec) { e.Conditions[0].Epochs = 2 },
			"experiment x: conditions[0] (E0): epochs 2: only a heldout condition plays its cases several times"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := orderingsSpec()
			e.Orderings = 0
			tc.edit(&e)
			err := e.Validate()
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.err)
		})
	}
}

func TestEpochsOf(t *testing.T) {
	e := orderingsSpec()
	h0, h1, e1 := e.Conditions[2], e.Conditions[3], e.Conditions[1]
	require.Equal(t, 1, e.EpochsOf(h0), "no epochs: one play")
	e.Epochs = 3
	h1.Epochs = 5
	require.Equal(t, 3, e.EpochsOf(h0), "the experiment's")
	require.Equal(t, 5, e.EpochsOf(h1), "the condition's own")
	require.Equal(t, 1, e.EpochsOf(e1), "a stream plays each case once")
}

// TestEvalPlays: plays go epoch by epoch; the first epoch keeps the IDs of
// an evaluation without epochs, a later one is distinct and sorts after it.
func TestEvalPlays(t *testing.T) {
	e := EvalSpec{RunID: "x-H0", CaseIDs: []string{"a", "b", "c"}, Epochs: 2}
	require.Equal(t, 6, e.Plays())
	var got [][2]int
	for i := range e.Plays() {
		c, k := e.Play(i)
		got = append(got, [2]int{c, k})
	}
	require.Equal(t, [][2]int{{0, 1}, {1, 1}, {2, 1}, {0, 2}, {1, 2}, {2, 2}}, got)
	require.Equal(t, 3, EvalSpec{CaseIDs: []string{"a", "b", "c"}}.Plays(), "no epochs: each case once")

	require.Equal(t, EpisodeWorkflowID("x-H0", 1, 1, 7, "c"), EpochEpisodeID("x-H0", 1, 1, 7, 1, "c"))
	require.Equal(t, "x-H0/p1/s01/e0007-c", EpochEpisodeID("x-H0", 1, 1, 7, 0, "c"))
	require.Equal(t, "x-H0/p1/s01/e0007.k002-c", EpochEpisodeID("x-H0", 1, 1, 7, 2, "c"))
	require.Less(t, EpochEpisodeID("x-H0", 1, 1, 7, 1, "c"), EpochEpisodeID("x-H0", 1, 1, 7, 2, "c"))
	require.Less(t, EpochEpisodeID("x-H0", 1, 1, 7, 9, "c"), EpochEpisodeID("x-H0", 1, 1, 7, 10, "c"))

	bad := EvalSpec{RunID: "r", Kind: KindHeldOut, Corpus: "c", CaseIDs: []string{"a"}, Epochs: -1}.WithDefaults()
	require.ErrorContains(t, bad.Validate(), "evaluation r: epochs must be")
}
