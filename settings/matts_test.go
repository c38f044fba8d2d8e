package settings_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/settings"
)

// evolver.matts.k: 0 and 1 are no scaling; above 1 only with the method
// that contrasts the attempts; at most 16.
func TestMaTTSIsValidated(t *testing.T) {
	for _, tc := range []struct {
		name   string
		method string
		k      int
		want   string
	}{
		{"unset", settings.MethodClinevo, 0, ""},
		{"one attempt", settings.MethodClinevo, 1, ""},
		{"three with reasoningbank", settings.MethodReasoningBank, 3, ""},
		{"three with clinevo", settings.MethodClinevo, 3, "evolver.matts.k 3 needs evolver.method reasoningbank (the method that contrasts the attempts), got clinevo"},
		{"negative", settings.MethodReasoningBank, -1, "evolver.matts.k must be at least 0 and at most 16, got -1"},
		{"too many", settings.MethodReasoningBank, 17, "evolver.matts.k must be at least 0 and at most 16, got 17"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := settings.Default()
			s.Evolver.Method, s.Evolver.MaTTS.K = tc.method, tc.k
			err := s.Validate()
			if tc.want == "" {
				require.NoError(t, err)
				require.Equal(t, max(1, tc.k), s.Evolver.MaTTS.Attempts())
				return
			}
			require.EqualError(t, err, tc.want)
		})
	}
}
