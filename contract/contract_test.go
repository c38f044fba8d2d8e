package contract_test

import (
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
