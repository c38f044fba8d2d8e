package contract_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/contract"
)

// A stage evaluation's and a replay's run ID lead back to their stream.
func TestStreamOfRunID(t *testing.T) {
	for _, run := range []string{contract.StageEvalRunID("x-E1", 3), contract.ReplayRunID("x-E1", 4, 2), "x-E1"} {
		require.Equal(t, "x-E1", contract.StreamOfRunID(run), run)
	}
}

func TestValidateRunID(t *testing.T) {
	for _, ok := range []string{"good2", "e1-2026.11", "A_b.c-d", strings.Repeat("x", 64)} {
		require.NoError(t, contract.ValidateRunID(ok), ok)
	}
	const want = "a run ID takes 1 to 64 letters, digits, '.', '_' and '-', starting with a letter or digit (e.g. e1-2026.11)"
	for _, tc := range []struct{ id, err string }{
		{"a/b", `run ID "a/b" holds '/' at position 2: ` + want},
		{"x y", `run ID "x y" holds ' ' at position 2: ` + want},
		{"../../etc", `run ID "../../etc" holds '.' at position 1: ` + want},
		{"a/stream", `run ID "a/stream" holds '/' at position 2: ` + want},
		{"", "the run ID is empty: " + want},
		{"-r", `run ID "-r" holds '-' at position 1: ` + want},
		{"café", `run ID "café" holds 'é' at position 4: ` + want},
		{strings.Repeat("x", 65), `run ID "` + strings.Repeat("x", 65) + `" has 65 characters: ` + want},
	} {
		require.EqualError(t, contract.ValidateRunID(tc.id), tc.err)
	}
	err := contract.StreamSpec{RunID: "a/b", Corpus: "builtin:stream"}.WithDefaults().Validate()
	require.ErrorContains(t, err, `stream spec: run_id: run ID "a/b" holds '/'`)
}
