package timing_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/clinevo/clinevo/timing"
)

var t0 = time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)

// ev builds an event at t0 + ms milliseconds.
func ev(id int64, ms int, typ enumspb.EventType, set func(*historypb.HistoryEvent)) *historypb.HistoryEvent {
	e := &historypb.HistoryEvent{EventId: id, EventType: typ, EventTime: timestamppb.New(t0.Add(time.Duration(ms) * time.Millisecond))}
	if set != nil {
		set(e)
	}
	return e
}

func started(wfType, firstRun string) func(*historypb.HistoryEvent) {
	return func(e *historypb.HistoryEvent) {
		e.Attributes = &historypb.HistoryEvent_WorkflowExecutionStartedEventAttributes{WorkflowExecutionStartedEventAttributes: &historypb.WorkflowExecutionStartedEventAttributes{
			WorkflowType: &commonpb.WorkflowType{Name: wfType}, FirstExecutionRunId: firstRun}}
	}
}

func wtStarted(sched int64) func(*historypb.HistoryEvent) {
	return func(e *historypb.HistoryEvent) {
		e.Attributes = &historypb.HistoryEvent_WorkflowTaskStartedEventAttributes{WorkflowTaskStartedEventAttributes: &historypb.WorkflowTaskStartedEventAttributes{ScheduledEventId: sched}}
	}
}

func wtCompleted(sched, started int64) func(*historypb.HistoryEvent) {
	return func(e *historypb.HistoryEvent) {
		e.Attributes = &historypb.HistoryEvent_WorkflowTaskCompletedEventAttributes{WorkflowTaskCompletedEventAttributes: &historypb.WorkflowTaskCompletedEventAttributes{ScheduledEventId: sched, StartedEventId: started}}
	}
}

func actScheduled(name string) func(*historypb.HistoryEvent) {
	return func(e *historypb.HistoryEvent) {
		e.Attributes = &historypb.HistoryEvent_ActivityTaskScheduledEventAttributes{ActivityTaskScheduledEventAttributes: &historypb.ActivityTaskScheduledEventAttributes{ActivityType: &commonpb.ActivityType{Name: name}}}
	}
}

func actStarted(sched int64, attempt int32) func(*historypb.HistoryEvent) {
	return func(e *historypb.HistoryEvent) {
		e.Attributes = &historypb.HistoryEvent_ActivityTaskStartedEventAttributes{ActivityTaskStartedEventAttributes: &historypb.ActivityTaskStartedEventAttributes{ScheduledEventId: sched, Attempt: attempt}}
	}
}

func marker(t *testing.T, done int64, data *commonpb.Payloads) func(*historypb.HistoryEvent) {
	return func(e *historypb.HistoryEvent) {
		e.Attributes = &historypb.HistoryEvent_MarkerRecordedEventAttributes{MarkerRecordedEventAttributes: &historypb.MarkerRecordedEventAttributes{
			MarkerName: "LocalActivity", WorkflowTaskCompletedEventId: done, Details: map[string]*commonpb.Payloads{"data": data}}}
	}
}

// laData encodes marker data the way the Go SDK does (JSON of its
// localActivityMarkerData), with the workflow clock at t0 + ms.
func laData(t *testing.T, activityType string, ms int) *commonpb.Payloads {
	t.Helper()
	p, err := converter.GetDefaultDataConverter().ToPayloads(struct {
		ActivityID, ActivityType string
		ReplayTime               time.Time
		Attempt                  int32
	}{"1", activityType, t0.Add(time.Duration(ms) * time.Millisecond), 1})
	require.NoError(t, err)
	return p
}

// synthetic is a stream workflow "s" with two runs (r1 continues as r2) and
// one episode child "ep1" (run c1) started from r1. Times in ms are chosen so
// that every distribution below can be worked out by hand.
func synthetic(t *testing.T) map[string][]*historypb.HistoryEvent {
	W := enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED
	r1 := []*historypb.HistoryEvent{
		ev(1, 0, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, started("StreamWorkflow", "r1")),
		ev(2, 0, W, nil),
		ev(3, 40, enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED, wtStarted(2)),        // dispatch 40
		ev(4, 45, enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, wtCompleted(2, 3)), // run 5
		ev(5, 45, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, actScheduled("Grade")),
		ev(6, 46, enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED, actStarted(5, 1)), // dispatch 1
		ev(7, 56, enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, func(e *historypb.HistoryEvent) { // Grade 10
			e.Attributes = &historypb.HistoryEvent_ActivityTaskCompletedEventAttributes{ActivityTaskCompletedEventAttributes: &historypb.ActivityTaskCompletedEventAttributes{ScheduledEventId: 5, StartedEventId: 6}}
		}),
		ev(8, 56, W, nil),
		ev(9, 106, enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED, wtStarted(8)),         // dispatch 50
		ev(10, 108, enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, wtCompleted(8, 9)), // run 2
		ev(11, 108, enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED, nil),
		ev(12, 138, enumspb.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED, func(e *historypb.HistoryEvent) { // child start 30
			e.Attributes = &historypb.HistoryEvent_ChildWorkflowExecutionStartedEventAttributes{ChildWorkflowExecutionStartedEventAttributes: &historypb.ChildWorkflowExecutionStartedEventAttributes{
				InitiatedEventId: 11, WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: "ep1", RunId: "c1"}}}
		}),
		ev(13, 138, W, nil),
		ev(14, 148, enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED, wtStarted(13)),         // dispatch 10
		ev(15, 150, enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, wtCompleted(13, 14)), // run 2
		ev(16, 150, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, actScheduled("Grade")),
		ev(17, 300, enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED, actStarted(16, 3)), // third attempt: no dispatch sample
		ev(18, 320, enumspb.EVENT_TYPE_ACTIVITY_TASK_FAILED, func(e *historypb.HistoryEvent) { // Grade 20
			e.Attributes = &historypb.HistoryEvent_ActivityTaskFailedEventAttributes{ActivityTaskFailedEventAttributes: &historypb.ActivityTaskFailedEventAttributes{ScheduledEventId: 16, StartedEventId: 17}}
		}),
		ev(19, 320, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW, func(e *historypb.HistoryEvent) {
			e.Attributes = &historypb.HistoryEvent_WorkflowExecutionContinuedAsNewEventAttributes{WorkflowExecutionContinuedAsNewEventAttributes: &historypb.WorkflowExecutionContinuedAsNewEventAttributes{NewExecutionRunId: "r2"}}
		}),
	}
	r2 := []*historypb.HistoryEvent{
		ev(1, 400, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, started("StreamWorkflow", "r1")),
		ev(2, 400, W, nil),
		ev(3, 430, enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED, wtStarted(2)),        // dispatch 30
		ev(4, 431, enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, wtCompleted(2, 3)), // run 1
		ev(5, 431, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, nil),
	}
	c1 := []*historypb.HistoryEvent{
		ev(1, 138, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, started("EpisodeWorkflow", "c1")),
		ev(2, 138, W, nil),
		ev(3, 158, enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED, wtStarted(2)),                     // dispatch 20
		ev(4, 170, enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, wtCompleted(2, 3)),              // run 12
		ev(5, 170, enumspb.EVENT_TYPE_MARKER_RECORDED, marker(t, 4, laData(t, "Decide", 163))), // 163 − 158 = 5
		ev(6, 170, enumspb.EVENT_TYPE_MARKER_RECORDED, marker(t, 4, laData(t, "Step", 170))),   // 170 − 163 = 7
		ev(7, 170, enumspb.EVENT_TYPE_MARKER_RECORDED, marker(t, 4, &commonpb.Payloads{Payloads: []*commonpb.Payload{{
			Metadata: map[string][]byte{"encoding": []byte("binary/encrypted")}, Data: []byte{1}}}})),
		ev(8, 170, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, nil),
	}
	return map[string][]*historypb.HistoryEvent{"s/": r2, "s/r1": r1, "s/r2": r2, "ep1/c1": c1}
}

func fetchFrom(h map[string][]*historypb.HistoryEvent) timing.Fetch {
	return func(_ context.Context, id, run string) ([]*historypb.HistoryEvent, error) {
		events, ok := h[id+"/"+run]
		if !ok {
			return nil, errors.New("not found")
		}
		return events, nil
	}
}

func TestCollectFollowsRunsAndChildren(t *testing.T) {
	h := synthetic(t)
	runs, err := timing.Collect(context.Background(), fetchFrom(h), "s")
	require.NoError(t, err)
	var got []string
	for _, r := range runs {
		got = append(got, r.WorkflowID+"/"+r.RunID)
	}
	require.Equal(t, []string{"s/r1", "ep1/c1", "s/r2"}, got, "first run, its child, then the run it continued as")

	delete(h, "ep1/c1")
	_, err = timing.Collect(context.Background(), fetchFrom(h), "s")
	require.ErrorContains(t, err, "read ep1 run c1: not found")
	_, err = timing.Collect(context.Background(), fetchFrom(h), "missing")
	require.ErrorContains(t, err, "read missing: not found")
}

func TestAnalyseSynthetic(t *testing.T) {
	runs, err := timing.Collect(context.Background(), fetchFrom(synthetic(t)), "s")
	require.NoError(t, err)
	r := timing.Analyse(runs)
	require.Equal(t, map[string]int{"StreamWorkflow": 2, "EpisodeWorkflow": 1}, r.Runs)
	require.Equal(t, map[string]int{"StreamWorkflow": 4, "EpisodeWorkflow": 1}, r.WorkflowTasks)
	// Dispatch 40, 50, 10 (r1), 20 (c1), 30 (r2) → sorted 10 20 30 40 50:
	// nearest rank p50 = ⌈0.5·5⌉ = 3rd = 30, p90 = ⌈0.9·5⌉ = 5th = 50.
	require.Equal(t, timing.Dist{Count: 5, P50: 30, P90: 50, Max: 50}, r.WorkflowTaskDispatch)
	// Runs 5, 2, 2, 12, 1 → 1 2 2 5 12.
	require.Equal(t, timing.Dist{Count: 5, P50: 2, P90: 12, Max: 12}, r.WorkflowTaskRun)
	// The third attempt of the second Grade is no dispatch sample.
	require.Equal(t, timing.Dist{Count: 1, P50: 1, P90: 1, Max: 1}, r.ActivityDispatch)
	// Grade ran 10 ms (completed) and 20 ms (failed): p50 = 1st, p90 = ⌈1.8⌉ = 2nd.
	require.Equal(t, map[string]timing.Dist{"Grade": {Count: 2, P50: 10, P90: 20, Max: 20}}, r.ActivityRun)
	require.Equal(t, map[string]timing.Dist{"Decide": {Count: 1, P50: 5, P90: 5, Max: 5}, "Step": {Count: 1, P50: 7, P90: 7, Max: 7}}, r.LocalActivityRun)
	require.Equal(t, 1, r.UnreadMarkers, "the encrypted marker")
	require.Equal(t, timing.Dist{Count: 1, P50: 30, P90: 30, Max: 30}, r.ChildWorkflowStart)
	require.InDelta(t, 0.431, r.WallSeconds, 1e-9)

	var names []string
	for _, row := range r.Rows() {
		names = append(names, row.Name)
	}
	require.Equal(t, []string{"workflow task dispatch", "workflow task run", "activity dispatch", "child workflow start",
		"activity Grade", "local activity Decide", "local activity Step"}, names)
}

// TestAnalyseRecordedHistories reads histories exported from real runs on the
// embedded server (copies of workflows/testdata): every event of each kind is
// counted, and the SDK's own marker format is decoded.
func TestAnalyseRecordedHistories(t *testing.T) {
	load := func(f string) timing.Run {
		fh, err := os.Open(f)
		require.NoError(t, err)
		defer fh.Close()
		h, err := client.HistoryFromJSON(fh, client.HistoryJSONOptions{})
		require.NoError(t, err)
		return timing.Run{WorkflowID: f, Events: h.GetEvents()}
	}
	tests := []struct {
		file                   string
		wfType                 string
		workflowTasks, markers int
		activities             map[string]int
		children               int
	}{
		// Counted in the files with grep.
		{"testdata/stream_stage1.json", "StreamWorkflow", 12, 0, map[string]int{"ValidateStream": 1, "Grade": 2, "Evolve": 2, "Record": 2}, 2},
		{"testdata/episode.json", "EpisodeWorkflow", 2, 16, map[string]int{"Score": 1}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			r := timing.Analyse([]timing.Run{load(tc.file)})
			require.Equal(t, map[string]int{tc.wfType: 1}, r.Runs)
			require.Equal(t, tc.workflowTasks, r.WorkflowTaskDispatch.Count)
			require.Equal(t, tc.workflowTasks, r.WorkflowTaskRun.Count)
			acts := map[string]int{}
			total := 0
			for n, d := range r.ActivityRun {
				acts[n] = d.Count
				total += d.Count
				require.GreaterOrEqual(t, d.P50, 0.0)
			}
			require.Equal(t, tc.activities, acts)
			require.Equal(t, total, r.ActivityDispatch.Count)
			markers := 0
			for _, d := range r.LocalActivityRun {
				markers += d.Count
				require.GreaterOrEqual(t, d.P50, 0.0, "a local activity cannot end before it started")
				require.LessOrEqual(t, d.Max, r.WorkflowTaskRun.Max, "local activities run inside a workflow task")
			}
			require.Equal(t, tc.markers, markers)
			require.Zero(t, r.UnreadMarkers)
			require.Equal(t, tc.children, r.ChildWorkflowStart.Count)
			require.Positive(t, r.WorkflowTaskDispatch.P50)
		})
	}
}
