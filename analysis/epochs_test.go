package analysis

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
)

func TestPassAtAndPassHat(t *testing.T) {
	for _, tc := range []struct {
		n, c, k int
		at, hat float64
		defined bool
	}{
		// pass@2 = 1 − C(3,2)/C(5,2) = 1 − 3/10 = 0.7; pass^2 = C(2,2)/C(5,2) = 1/10.
		{n: 5, c: 2, k: 2, at: 0.7, hat: 0.1, defined: true},
		// k = 1: both are c/n = 2/5.
		{n: 5, c: 2, k: 1, at: 0.4, hat: 0.4, defined: true},
		// n − c = 1 < k = 2: every pair of plays holds a correct one, pass@2 = 1;
		// pass^2 = C(3,2)/C(4,2) = 3/6 = 0.5.
		{n: 4, c: 3, k: 2, at: 1, hat: 0.5, defined: true},
		// c = 0: pass@k = 1 − C(3,3)/C(3,3) = 0; pass^k = 0.
		{n: 3, c: 0, k: 3, at: 0, hat: 0, defined: true},
		// c = n: pass@3 = 1, pass^3 = C(3,3)/C(3,3) = 1.
		{n: 3, c: 3, k: 3, at: 1, hat: 1, defined: true},
		// pass@3 = 1 − C(6,3)/C(10,3) = 1 − 20/120 = 5/6;
		// pass^3 = C(4,3)/C(10,3) = 4/120 = 1/30.
		{n: 10, c: 4, k: 3, at: 5.0 / 6, hat: 1.0 / 30, defined: true},
		// c = 1 < k = 2: pass^2 = C(1,2)/C(4,2) = 0; pass@2 = 1 − C(3,2)/C(4,2) = 1 − 3/6 = 0.5.
		{n: 4, c: 1, k: 2, at: 0.5, hat: 0, defined: true},
		// fewer plays than k: undefined, as inspect's reducers return NaN.
		{n: 2, c: 1, k: 3},
	} {
		t.Run(fmt.Sprintf("n%d_c%d_k%d", tc.n, tc.c, tc.k), func(t *testing.T) {
			at, ok := PassAt(tc.n, tc.c, tc.k)
			require.Equal(t, tc.defined, ok)
			hat, ok2 := PassHat(tc.n, tc.c, tc.k)
			require.Equal(t, tc.defined, ok2)
			require.InDelta(t, tc.at, at, 1e-12, "pass@k")
			require.InDelta(t, tc.hat, hat, 1e-12, "pass^k")
		})
	}
}

// play is the record of one play of a held-out case.
func play(run, caseID string, epoch int, s float64, strict bool) results.Record {
	return results.Record{EpisodeID: contract.EpochEpisodeID(run, 1, 1, 1, epoch, caseID), Run: run, Kind: "heldout", CaseID: caseID,
		Epoch: epoch, Scores: clinic.Scores{S: s, Strict: strict}}
}

func TestEpochReducers(t *testing.T) {
	// Case a: 3 plays, 2 strict (S 1, 1, 0.4); case b: 3 plays, none strict (S 0.2, 0.2, 0.5).
	recs := []results.Record{
		play("h", "a", 1, 1, true), play("h", "b", 1, 0.2, false),
		play("h", "a", 2, 1, true), play("h", "b", 2, 0.2, false),
		play("h", "a", 3, 0.4, false), play("h", "b", 3, 0.5, false),
	}
	r := EpochReducers("H0", 3, recs)
	require.NotNil(t, r)
	require.Equal(t, 2, r.Cases)
	// mean of S: a 2.4/3 = 0.8, b 0.9/3 = 0.3; over cases (0.8+0.3)/2 = 0.55.
	require.InDelta(t, 0.55, r.Mean, 1e-12)
	// strict rate: a 2/3, b 0; mean 1/3.
	require.InDelta(t, 1.0/3, r.MeanStrict, 1e-12)
	// pass@1: a 2/3, b 0 → 1/3. pass@2: a 1 − C(1,2)/C(3,2) = 1, b 0 → 0.5.
	// pass@3: a 1, b 0 → 0.5.
	want := []float64{1.0 / 3, 0.5, 0.5}
	// pass^1 = pass@1 = 1/3. pass^2: a C(2,2)/C(3,2) = 1/3, b 0 → 1/6.
	// pass^3: a C(2,3) = 0 → 0.
	wantHat := []float64{1.0 / 3, 1.0 / 6, 0}
	for i := range 3 {
		require.Equal(t, i+1, r.PassAt[i].K)
		require.InDelta(t, want[i], r.PassAt[i].Value, 1e-12, "pass@%d", i+1)
		require.InDelta(t, wantHat[i], r.PassHat[i].Value, 1e-12, "pass^%d", i+1)
		require.LessOrEqual(t, r.PassAt[i].CI.Low, r.PassAt[i].Value)
		require.GreaterOrEqual(t, r.PassAt[i].CI.High, r.PassAt[i].Value)
	}
	require.Nil(t, EpochReducers("H0", 1, recs), "one epoch: no reducers")
}

func TestTransferPairsByCaseOverTheEpochMean(t *testing.T) {
	// H3 played 2 epochs: case a S 1 and 0.5 (mean 0.75), case b 0 and 0.2 (mean 0.1).
	h3 := []results.Record{play("h3", "a", 1, 1, true), play("h3", "b", 1, 0, false),
		play("h3", "a", 2, 0.5, false), play("h3", "b", 2, 0.2, false)}
	// H0 played 2 epochs too: a 0.5 and 0.5, b 0 and 0.
	h0 := []results.Record{play("h0", "a", 1, 0.5, false), play("h0", "b", 1, 0, false),
		play("h0", "a", 2, 0.5, false), play("h0", "b", 2, 0, false)}
	tr := transfer("H3", "H0", h3, h0, false)
	// One pair per case: a 0.75 − 0.5 = 0.25, b 0.1 − 0 = 0.1; ET(S) = 0.175.
	require.Equal(t, 2, tr.N)
	require.InDeltaSlice(t, []float64{0.25, 0.1}, tr.Deltas, 1e-12)
	require.InDelta(t, 0.175, tr.ETS, 1e-12)
	// strict: a 1/2 − 0 = 0.5, b 0; ET(strict) = 0.25.
	require.InDelta(t, 0.25, tr.ETStrict, 1e-12)
	for _, c := range compare("H0", "H3", h0, h3, false) {
		require.Equal(t, 2, c.N, c.Metric)
		if c.Metric == "strict" {
			require.Nil(t, c.McNemar, "McNemar needs one 0/1 outcome per case")
			require.InDelta(t, 0.25, c.MeanDiff, 1e-12)
		}
	}
}

// TestEpochsOutputs: the reducers reach epochs.csv, the terminal summary
// and the page.
func TestEpochsOutputs(t *testing.T) {
	recs := []results.Record{play("h", "a", 1, 1, true), play("h", "a", 2, 0, false)}
	r := EpochReducers("H0", 2, recs)
	// One case, plays strict and not: mean S 0.5, pass@1 = 1/2, pass@2 = 1 − C(1,2)/C(2,2) = 1,
	// pass^2 = C(1,2)/C(2,2) = 0.
	rep := Report{Epochs: []Reducers{*r}}
	rows := csvTables(rep)["epochs.csv"]
	require.Len(t, rows, 1+2+2*2, "header, the two means, pass@k and pass^k at k = 1, 2")
	require.Equal(t, []string{"H0", "2", "1", "pass_at_k", "2", "1.0000", "1.0000", "1.0000"}, rows[4])
	require.Equal(t, []string{"H0", "2", "1", "pass_hat_k", "2", "0.0000", "0.0000", "0.0000"}, rows[6])
	var b strings.Builder
	WriteSummary(&b, rep)
	require.Contains(t, b.String(), "epochs H0: 2 plays of 1 cases; mean S 0.500 [0.500, 0.500], strict 0.500\n  pass@k k=1 0.500 [0.500, 0.500]  k=2 1.000 [1.000, 1.000]\n  pass^k k=1 0.500")
	require.Contains(t, string(epochsHTML(rep.Epochs)), "<td>H0</td><td>2</td><td>1</td>")
	require.Nil(t, csvTables(Report{})["epochs.csv"], "no epochs, no file")
}

// TestCaseValues: without epochs, one value a record; with them, one a
// case, the mean of its plays, in the order of its first play.
func TestCaseValues(t *testing.T) {
	once := []results.Record{play("h", "a", 0, 1, true), play("h", "b", 0, 0.5, false)}
	require.Equal(t, []float64{1, 0.5}, caseValues(once, "S"))
	// a: (1 + 0.5)/2 = 0.75; b: (0 + 0.2)/2 = 0.1.
	twice := []results.Record{play("h", "a", 1, 1, true), play("h", "b", 1, 0, false), play("h", "a", 2, 0.5, false), play("h", "b", 2, 0.2, false)}
	require.InDeltaSlice(t, []float64{0.75, 0.1}, caseValues(twice, "S"), 1e-12)
	require.InDeltaSlice(t, []float64{0.5, 0}, caseValues(twice, "strict"), 1e-12)
	s := split("h", twice, nil)
	require.Equal(t, 4, s.Seen.N, "the side counts plays")
	require.GreaterOrEqual(t, s.SeenCI.Low, 0.1, "the interval resamples the two case means, 0.75 and 0.1")
	require.LessOrEqual(t, s.SeenCI.High, 0.75)
}

// TestShownK: up to 10 epochs every k is shown; of more, k = 1, 2, 3, 5,
// 10, 20, 50, 100 up to K, and K.
func TestShownK(t *testing.T) {
	ks := func(n int) []int {
		var as []AtK
		for k := 1; k <= n; k++ {
			as = append(as, AtK{K: k})
		}
		var out []int
		for _, a := range shown(as) {
			out = append(out, a.K)
		}
		return out
	}
	require.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, ks(10))
	require.Equal(t, []int{1, 2, 3, 5, 10, 20, 25}, ks(25))
	require.Equal(t, []int{1, 2, 3, 5, 10, 20, 50, 100}, ks(100))
}
