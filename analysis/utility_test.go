package analysis_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
)

// U is MedEvoEval's (§4, appendix C.2); EvoClinician, GPAgentBench and
// KlinikeBench define none and their records hold 0. A report shows U, ET(U),
// BWT(U), the U comparisons and the weight sensitivity only for conditions
// whose profile defines it, and "–" (or an empty CSV field) elsewhere.
func TestUOnlyWhereTheProfileDefinesIt(t *testing.T) {
	// All MedEvoEval (the fixture has no settings: the default profile).
	rep := analysis.Build(fixture())
	for _, c := range rep.Conditions {
		require.True(t, c.DefinesU(), c.Name)
	}
	require.NotNil(t, rep.Transfer[0].ETU)
	// U = 0.6·S − 0.1 in every record: ET(U) = 0.6·ET(S) = 0.3.
	require.InDelta(t, 0.3, *rep.Transfer[0].ETU, 1e-9)
	require.NotNil(t, rep.Retention[0].BWTU)
	require.NotEmpty(t, rep.Sensitivity)

	// E0 under MedEvoEval; E1, H0 and H3 under Med-Inquire.
	in := fixture()
	inquire := settings.Default()
	inquire.Benchmark = noUProfile
	in.Settings = map[string]settings.Settings{"t-E0": settings.Default(), "t-E1": inquire, "t-H0": inquire, "t-H3": inquire}
	rep = analysis.Build(in)
	require.True(t, rep.Conditions[0].DefinesU())
	require.Equal(t, noUProfile, rep.Conditions[1].Benchmark)
	require.False(t, rep.Conditions[1].DefinesU())
	require.Nil(t, rep.Transfer[0].ETU)
	require.InDelta(t, 0.5, rep.Transfer[0].ETS, 1e-9, "the S statistics are unchanged")
	require.Nil(t, rep.Retention[0].BWTU)
	require.Nil(t, rep.Retention[0].U)
	require.InDelta(t, -0.1, *rep.Retention[0].BWTS, 1e-9)
	for _, c := range rep.Comparisons {
		require.NotEqual(t, "U", c.Metric, "%s > %s", c.A, c.B)
	}
	require.Empty(t, rep.Sensitivity, "one stream defines U: nothing to rank")

	charts := analysis.StageCharts(rep)
	var u string
	for _, c := range charts {
		if strings.Contains(string(c), "<title>U by stage</title>") {
			u = string(c)
		}
	}
	require.Contains(t, u, ">E0<")
	require.NotContains(t, u, ">E1<")

	dir := t.TempDir()
	require.NoError(t, analysis.Write(dir, rep, func(id string) (clinic.Trace, error) { return clinic.Trace{EpisodeID: id}, nil }))
	f, err := os.Open(filepath.Join(dir, "stages.csv"))
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Equal(t, "u", rows[0][8])
	for _, r := range rows[1:] {
		require.Equal(t, r[0] == "E0", r[8] != "", "condition %s: u %q", r[0], r[8])
	}
	html, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	// The conditions table: E1's U cell is a dash, E0's a number.
	page := string(html)
	e1 := page[strings.Index(page, "<tr><td>E1</td><td>stream</td>"):]
	e1 = e1[:strings.Index(e1, "</tr>")]
	require.Equal(t, 1, strings.Count(e1, "<td>–</td>"), e1)
	e0 := page[strings.Index(page, "<tr><td>E0</td><td>stream</td>"):]
	e0 = e0[:strings.Index(e0, "</tr>")]
	require.NotContains(t, e0, "<td>–</td>")
}
