package acts

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOrderedKeepsEachCaseWithItsCondition: an ordering moves every case
// with its condition, and seed 0 is the plan as it was.
func TestOrderedKeepsEachCaseWithItsCondition(t *testing.T) {
	p := StreamPlan{CaseIDs: []string{"a", "b", "c", "d", "e", "f", "g", "h"}, Conditions: []string{"A", "B", "C", "D", "E", "F", "G", "H"}}
	require.Equal(t, p, p.Ordered(0, 0))
	o := p.Ordered(1, 0)
	// contract.CaseOrder(8, 1, 0) is [2 5 0 4 6 7 1 3].
	require.Equal(t, []string{"c", "f", "a", "e", "g", "h", "b", "d"}, o.CaseIDs)
	require.Equal(t, []string{"C", "F", "A", "E", "G", "H", "B", "D"}, o.Conditions)
	require.Equal(t, []string{"a", "b", "c", "d", "e", "f", "g", "h"}, p.CaseIDs, "the plan it came from is unchanged")
}
