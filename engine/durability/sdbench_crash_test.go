package durability_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/sdbench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/llm/llmtest"
)

// TestGatekeeperResultSurvivesSIGKILL plays one SDBench encounter with a
// model gatekeeper (roles.gatekeeper) that makes up a new result on every
// call. The doctor orders a test the record does not hold, the worker is
// killed with SIGKILL while the doctor decides its second turn, and the
// restarted worker's doctor orders the same test again: the gatekeeper is
// not asked again and the second result is the first, read back from the
// results store (Nori et al. 2025, SDBench: a synthetic result stays the case's).
func TestGatekeeperResultSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs subprocesses")
	}
	t.Parallel() // see TestMain
	const test = "whole body thermography"
	srv := llmtest.New(t)
	var gatekeeperCalls atomic.Int32
	blocked, release := make(chan struct{}), make(chan struct{})
	var blockOnce, releaseOnce sync.Once
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) })
	srv.Script = func(n int, r llmtest.Request) *llmtest.Reply {
		switch {
		case strings.HasPrefix(r.System, "You hold the complete record"):
			k := gatekeeperCalls.Add(1)
			return &llmtest.Reply{Status: 200, Content: fmt.Sprintf(`{"result":"Synthetic finding number %d: patchy warmth over the right flank."}`, k)}
		case r.Role == "doctor":
			switch strings.Count(r.User, test+" [") {
			case 0:
				return &llmtest.Reply{Status: 200, Content: `{"action":"REQUEST_TEST","test_name":"` + test + `","utterance":"A scan, please."}`}
			case 1:
				first := false
				blockOnce.Do(func() { first = true })
				if first { // the worker is killed while this request is open
					close(blocked)
					<-release
					return &llmtest.Reply{Status: 500, Content: "the worker is gone"}
				}
				return &llmtest.Reply{Status: 200, Content: `{"action":"REQUEST_TEST","test_name":"Whole body thermography","utterance":"Again, please."}`}
			}
			return &llmtest.Reply{Status: 200, Content: `{"action":"FINALIZE","diagnosis":["pyelonephritis"],"utterance":"My diagnosis."}`}
		}
		return nil
	}
	s := enginetest.ModelSettings(srv, "", "doctor", sdbench.Role)
	s.Benchmark = sdbench.Name

	spec := contract.StreamSpec{RunID: "sd-crash", Corpus: "builtin:sdbench", CaseIDs: []string{"sdbench-0001"}, StageSize: 1,
		ActivityTimeoutSeconds: 3, Settings: s}
	evs := killMidEpisode(t, spec, blocked, release, &releaseOnce)
	require.GreaterOrEqual(t, len(evs), 3)
	first, second := sdbench.TurnOf(evs[0]).Orders, sdbench.TurnOf(evs[1]).Orders
	require.Len(t, first, 1)
	require.True(t, first[0].Synthetic)
	require.Contains(t, first[0].Result, "Synthetic finding number 1")
	require.Equal(t, clinic.StatusDuplicate, second[0].Status)
	require.Equal(t, first[0].Result, second[0].Result, "the same synthetic result after the restart")
	require.EqualValues(t, 1, gatekeeperCalls.Load(), "one gatekeeper call for the test, before and after the kill")
}
