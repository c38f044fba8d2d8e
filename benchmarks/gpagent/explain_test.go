package gpagent_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/view"
)

func lineOf(v view.ScoreView, name string) view.ScoreLine {
	for _, l := range v.Lines {
		if l.Name == name {
			return l
		}
	}
	return view.ScoreLine{}
}

// GPAgentBench C.2 and Table 7 by hand, with clinevo's headline S.
func TestExplainGPAgent(t *testing.T) {
	set := gpSettings()
	for _, tc := range []struct {
		name    string
		s       float64
		metrics map[string]float64
		how     string
		check   string
	}{
		{"treated right", 0.8125, map[string]float64{"mgmt": 1, "miss_gp": 0, "dx": 1, "tx": 0.5, "reward": 6.5, "cost_safety": 0},
			"(5·1 + 3·0.5)/8 on a treated case", "follows from the stored metrics"},
		{"referred right", 1, map[string]float64{"mgmt": 1, "miss_refer": 0, "dest": 1, "reward": 0, "cost_safety": 0},
			"(1 + Dest)/2 = (1 + 1)/2 on a referral", "follows from the stored metrics"},
		{"wrong pathway, stored S inconsistent", 0.5, map[string]float64{"mgmt": 0, "miss_refer": 1, "dest": 0, "dx": 1, "tx": 1, "reward": 8, "cost_safety": 1},
			"0: the wrong pathway", "give S = 0.0000, not the stored 0.5000"},
		{"no referral label", 1, map[string]float64{"dx": 1, "tx": 1, "reward": 8},
			"on a treated case", "is not checked"},
	} {
		v := gpagent.Benchmark{}.Explain(clinic.Scores{S: tc.s, Metrics: tc.metrics}, &clinic.Case{}, set)
		require.Contains(t, lineOf(v, "S").How, tc.how, tc.name)
		require.Contains(t, v.Check, tc.check, tc.name)
		for k := range tc.metrics {
			require.True(t, v.Explained[k], "%s: metric %s has its own line", tc.name, k)
		}
		require.True(t, strings.HasPrefix(lineOf(v, "reward").How, "r = w_diag·Dx + w_treat·Tx"), tc.name)
	}
}
