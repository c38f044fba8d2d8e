package activities_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/synth"
)

// TestLongCaseOrdersAreRefused (issue 37, item 2): a run's case order
// travels in its history (ValidateStream's and PlanCases' results, an
// evaluation's input), so one past MaxPlanBytes is refused with what to do,
// where it used to put a payload past Temporal's 2 MiB and stop the run.
// 2,100 cases of 128-byte IDs and conditions are 2,100 × (128 + 128 + 6) =
// 550,200 bytes, past 524,288; 1,000 of them (262,000 bytes) play.
func TestLongCaseOrdersAreRefused(t *testing.T) {
	base := synth.Generate(7)["heldout"][0]
	var cases []clinic.Case
	for i := range 2100 {
		c := base
		c.ID = fmt.Sprintf("%s%06d", strings.Repeat("c", 122), i)
		c.Condition = strings.Repeat("k", 128)
		cases = append(cases, c)
	}
	f := filepath.Join(t.TempDir(), "long.jsonl")
	lib := corpus.NewLibrary(defaultSet(t))
	require.NoError(t, lib.WriteJSONL(f, cases))
	cs := activities.NewCorpora(lib)
	_, err := cs.Plan(f, nil, 0)
	require.EqualError(t, err, "the case order of 2100 cases of "+f+" is 550200 bytes of workflow history, more than a run carries (524288): "+
		"play fewer at a time (--limit, limit, heldout_limit) or split the corpus")
	p, err := cs.Plan(f, nil, 1000)
	require.NoError(t, err)
	require.Len(t, p.CaseIDs, 1000)
}
