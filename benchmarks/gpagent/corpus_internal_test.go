package gpagent

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
)

// TestVariantTable checks the refer variants against the condition table:
// one row per condition, each with its red flags, treatment and referral,
// every fact it drops one of the condition's.
func TestGPVariantTable(t *testing.T) {
	keys := map[string]bool{}
	for _, v := range variants {
		require.False(t, keys[v.key], "one row per condition: %s", v.key)
		keys[v.key] = true
		facts, ok := synth.HistoryFacts(v.key)
		require.True(t, ok, "a condition of the table: %s", v.key)
		require.NotEmpty(t, v.flags, v.key)
		require.NotEmpty(t, v.redFlags, v.key)
		require.NotEmpty(t, v.tx, v.key)
		dest, urgency := synth.Pair(v.ref)
		require.NotEmpty(t, dest, v.key)
		require.Contains(t, []string{"routine", "urgent", "emergency"}, urgency, v.key)
		for _, d := range synth.List(v.drop) {
			found := false
			for _, f := range facts {
				found = found || strings.Contains(strings.ToLower(f), strings.ToLower(d))
			}
			require.True(t, found, "%s: drop %q matches no fact", v.key, d)
			require.False(t, synth.Varies(d), "%s: drop %q would miss a varied fact", v.key, d)
		}
		for _, f := range v.flags {
			topic, _ := synth.Pair(f)
			require.Contains(t, clinic.Topics, topic, v.key)
		}
	}
}
