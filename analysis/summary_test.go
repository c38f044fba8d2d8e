package analysis_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/benchmarks/medevoeval"
)

// TestWriteEncounters checks the summary's recall/transfer lines: a stream's
// first encounters and seen-before episodes, a held-out condition's opening and
// condition splits with its lineage, and an empty side printed as n=0.
func TestWriteEncounters(t *testing.T) {
	m := func(n int, s float64) analysis.StageMean { return analysis.StageMean{N: n, S: s} }
	rep := analysis.Report{Conditions: []analysis.ConditionReport{
		{Name: "E1", Kind: "stream", Bench: medevoeval.Benchmark{}, Encounters: &analysis.Encounters{Lineage: []string{"E1"},
			Condition: analysis.Split{Seen: m(54, 0.61), New: m(46, 0.08)}}},
		{Name: "H0", Kind: "heldout", Bench: medevoeval.Benchmark{}},
		{Name: "H3", Kind: "heldout", Bench: medevoeval.Benchmark{}, Encounters: &analysis.Encounters{Lineage: []string{"E1", "E2"},
			Condition: analysis.Split{Seen: m(50, 0.78)}, Opening: &analysis.Split{New: m(50, 0.78)}}},
	}}
	var b bytes.Buffer
	analysis.WriteSummary(&b, analysis.Report{Transfer: nil, Conditions: nil})
	require.Empty(t, b.String(), "no condition, no line")
	analysis.WriteSummary(&b, rep)
	require.Equal(t, ""+
		"E1   stream   n=0    S=0.000 strict=0.00 U=0.000 last-stage S=–\n"+
		"H0   heldout  n=0    S=0.000 strict=0.00 U=0.000 last-stage S=–\n"+
		"H3   heldout  n=0    S=0.000 strict=0.00 U=0.000 last-stage S=–\n"+
		"E1   first encounter n=46 S=0.080 | seen before n=54 S=0.610\n"+
		"H3   opening seen n=0 | new n=50 S=0.780; condition seen n=50 S=0.780 | new n=0  (lineage E1 E2)\n", b.String())
}

// TestSummaryPValues: the summary prints a transfer's Wilcoxon p as the
// report does, "< 0.001" below a thousandth (never "p=0.0000") and three
// decimals otherwise; BWT with its sign, "–" where it is not defined.
func TestSummaryPValues(t *testing.T) {
	tr := func(name string, p float64) analysis.Transfer {
		return analysis.Transfer{Name: name, Baseline: "H0", N: 50, ETS: 0.452, CI: analysis.Interval{Low: 0.339, High: 0.557},
			Wilcoxon: analysis.WilcoxonResult{P: p}}
	}
	bwt := -0.0125
	var b bytes.Buffer
	analysis.WriteSummary(&b, analysis.Report{Transfer: []analysis.Transfer{tr("H3", 1e-9), tr("H1", 0.0342)},
		Retention: []analysis.Retention{{Name: "E1", BWTS: &bwt}}})
	require.Equal(t, "ET(S) H3 vs H0 = +0.452  [0.339, 0.557]  Wilcoxon p < 0.001  (n=50)\n"+
		"ET(S) H1 vs H0 = +0.452  [0.339, 0.557]  Wilcoxon p = 0.034  (n=50)\n"+
		"BWT E1: S -0.013, U –\n", b.String())
}

// TestWriteStageTable: rows by stage, then by the runs' labels (not their
// IDs), right-aligned: each cell takes its column's width plus the padding
// of 2 on its left.
func TestWriteStageTable(t *testing.T) {
	means := []analysis.StageMean{
		{Run: "q-E1", Stage: 2, N: 4, S: 0.5, Strict: 0.25, U: 0.1, T: 6, E: 1.5, Cost: 40},
		{Run: "q-E1", Stage: 1, N: 4, S: 0.25, T: 7, E: 1, Cost: 35.4},
		{Run: "q-E0", Stage: 1, N: 4, S: 0.125, T: 7, E: 1, Cost: 40},
	}
	var b bytes.Buffer
	require.NoError(t, analysis.WriteStageTable(&b, means, map[string]string{"q-E1": "A (first)", "q-E0": "B (second)"}))
	require.Equal(t, ""+
		"  stage         run  n      S  strict acc      U  turns  tests  cost USD\n"+
		"      1   A (first)  4  0.250        0.00  0.000    7.0   1.00        35\n"+
		"      1  B (second)  4  0.125        0.00  0.000    7.0   1.00        40\n"+
		"      2   A (first)  4  0.500        0.25  0.100    6.0   1.50        40\n", b.String())
}
