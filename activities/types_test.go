package activities

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/evolver"
)

func TestWithRuleBudget(t *testing.T) {
	tests := []struct {
		name      string
		rules     bool
		bp        int
		wantRules bool
		wantBP    int
	}{
		{"B_P 0 is a static prompt", true, 0, false, evolver.DefaultConfig().RuleBudget},
		{"a budget keeps the rules on", true, 5, true, 5},
		{"a budget does not turn rules on", false, 5, false, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := StreamSpec{RunID: "r", Corpus: "builtin:stream", Rules: tc.rules}.WithRuleBudget(tc.bp).WithDefaults()
			require.NoError(t, s.Validate())
			require.Equal(t, tc.wantRules, s.Rules)
			require.Equal(t, tc.wantBP, s.RuleBudget)
			require.Equal(t, tc.wantRules, s.EvolverConfig().WriteRules, "no rule is edited without rules")
		})
	}
}

func TestConditionTitle(t *testing.T) {
	require.Equal(t, "E0 (memory disabled)", ConditionSpec{Name: "E0", Label: "E0 (memory disabled)"}.Title())
	require.Equal(t, "H0", ConditionSpec{Name: "H0"}.Title(), "without a label, the name")
}
