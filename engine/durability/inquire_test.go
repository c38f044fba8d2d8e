package durability_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/llm/llmtest"
)

// TestPatientDetailsSurviveSIGKILL plays one Med-Inquire episode with a model
// patient that invents a new detail on every call (EvoClinician §3: the
// patient may go beyond the record, consistently). The doctor asks about
// smoking, the worker is killed with SIGKILL while the doctor is deciding its
// second turn, and the restarted worker's doctor asks about drinking, the same
// topic: the patient is not asked again and the second answer is the first,
// read back from the results store.
func TestPatientDetailsSurviveSIGKILL(t *testing.T) {
	t.Parallel() // see TestMain
	if testing.Short() {
		t.Skip("builds the binary and runs subprocesses")
	}
	srv := llmtest.New(t)
	var patientCalls atomic.Int32
	blocked, release := make(chan struct{}), make(chan struct{})
	var blockOnce, releaseOnce sync.Once
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) }) // before the server closes
	srv.Script = func(n int, r llmtest.Request) *llmtest.Reply {
		switch r.Role {
		case "patient":
			k := patientCalls.Add(1)
			return &llmtest.Reply{Status: 200, Content: fmt.Sprintf(
				`{"answer":"Detail number %d: I share a flat and go out at weekends.","revealed_fact_ids":[],"unanswered_reason":"none","generated_detail":true}`, k)}
		case "doctor":
			switch strings.Count(r.User, "\n- Q: ") {
			case 0:
				return &llmtest.Reply{Status: 200, Content: `{"action":"ASK","question":"Do you smoke?","utterance":"Do you smoke?"}`}
			case 1:
				first := false
				blockOnce.Do(func() { first = true })
				if first { // the worker is killed while this request is open
					close(blocked)
					<-release
					return &llmtest.Reply{Status: 500, Content: "the worker is gone"}
				}
				return &llmtest.Reply{Status: 200, Content: `{"action":"ASK","question":"Do you drink alcohol at all?","utterance":"And alcohol?"}`}
			}
			return &llmtest.Reply{Status: 200, Content: `{"action":"FINALIZE","diagnosis":["Candidal vulvovaginitis"],"utterance":"My diagnosis."}`}
		}
		return nil
	}
	s := enginetest.ModelSettings(srv, "", "doctor", "patient")
	s.Benchmark = "medinquire"

	spec := contract.StreamSpec{RunID: "inquire-crash", Corpus: "builtin:stream", CaseIDs: []string{"stream-0001"}, StageSize: 1,
		ActivityTimeoutSeconds: 3, Settings: s}
	evs := killMidEpisode(t, spec, blocked, release, &releaseOnce)
	require.GreaterOrEqual(t, len(evs), 3)
	require.Equal(t, clinic.Ask, evs[0].Action)
	require.Equal(t, "Do you smoke?", evs[0].Question)
	require.True(t, evs[0].Generated)
	require.Equal(t, []string{clinic.TopicSocial}, evs[0].Topics)
	require.Contains(t, evs[0].Reply, "Detail number 1")
	require.Equal(t, "Do you drink alcohol at all?", evs[1].Question)
	require.True(t, evs[1].Cached, "answered from the episode's cache of details")
	require.Equal(t, evs[0].Reply, evs[1].Reply, "the same detail after the restart")
	require.EqualValues(t, 1, patientCalls.Load(), "one patient call for the topic, before and after the kill")
}
