package runstatus

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWhere(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "S<0.5", want: "Score < 0.5"},
		{in: "s >= 0.25 and stage=3", want: "Score >= 0.25 AND Stage = 3"},
		{in: "condition=angina, kind != heldout", want: `Condition = "angina" AND Kind != "heldout"`},
		{in: "status=running", want: `ExecutionStatus = "Running"`},
		{in: "case='stream-0001'", want: `CaseId = "stream-0001"`},
		{in: "", want: ""},
		{in: "S<low", err: `S takes a number, got "low"`},
		{in: "score<0.5", err: `unknown name "score"`},
		{in: "case<x", err: "case takes = or !=, got <"},
		{in: "S", err: `"S" is not NAME OP VALUE`},
	} {
		got, err := Where(tc.in)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
}
