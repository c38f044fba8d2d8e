package runstatus

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/encoding/protojson"
)

// histories is a Temporal that holds one history: events, then err.
type histories struct {
	client.Client
	events []*historypb.HistoryEvent
	err    error
}

func (h histories) GetWorkflowHistory(context.Context, string, string, bool, enumspb.HistoryEventFilterType) client.HistoryEventIterator {
	return &events{h.events, h.err}
}

type events struct {
	left []*historypb.HistoryEvent
	err  error
}

func (e *events) HasNext() bool { return len(e.left) > 0 || e.err != nil }

func (e *events) Next() (*historypb.HistoryEvent, error) {
	if len(e.left) == 0 {
		return nil, e.err
	}
	ev := e.left[0]
	e.left = e.left[1:]
	return ev, nil
}

// TestHistoryJSON: every event of the history, as the indented JSON
// Temporal's CLI writes and replayers read (protojson: event type names in
// full, 64-bit numbers as strings; it varies the spaces after a colon on
// purpose, so the test reads the JSON back); a history that cannot be read
// is the error, naming the workflow.
func TestHistoryJSON(t *testing.T) {
	c := histories{events: []*historypb.HistoryEvent{
		{EventId: 1, EventType: enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED},
		{EventId: 2, EventType: enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED}}}
	b, err := HistoryJSON(context.Background(), c, "r1/stream", "")
	require.NoError(t, err)
	require.Regexp(t, `^\{\n  "events": +\[\n    \{\n      "eventId": +"1",\n      "eventType": +"EVENT_TYPE_WORKFLOW_EXECUTION_STARTED"\n`, string(b))
	var back historypb.History
	require.NoError(t, protojson.Unmarshal(b, &back))
	require.Len(t, back.Events, 2)
	require.Equal(t, enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, back.Events[1].EventType)

	c.err = errors.New("unavailable")
	_, err = HistoryJSON(context.Background(), c, "r1/stream", "")
	require.EqualError(t, err, "history of r1/stream: unavailable")
}
