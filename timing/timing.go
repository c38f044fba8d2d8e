// Package timing reads where the wall time of a durable run goes from its
// Temporal histories: how long workflow and activity tasks wait for a worker,
// how long activities and local activities run, and how long child workflows
// take to start. It only reads event times; it never replays workflow code.
package timing

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// Fetch returns the events of one workflow run; an empty runID means the
// latest run of the workflow ID.
type Fetch func(ctx context.Context, workflowID, runID string) ([]*historypb.HistoryEvent, error)

// FromClient fetches histories through a Temporal client.
func FromClient(c client.Client) Fetch {
	return func(ctx context.Context, workflowID, runID string) ([]*historypb.HistoryEvent, error) {
		var events []*historypb.HistoryEvent
		it := c.GetWorkflowHistory(ctx, workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				return nil, err
			}
			events = append(events, ev)
		}
		return events, nil
	}
}

// Run is the history of one workflow run.
type Run struct {
	WorkflowID string
	RunID      string
	Events     []*historypb.HistoryEvent
}

// Collect reads every run of a workflow (the chain of continue-as-new runs,
// from the first) and, depth-first in start order, every child workflow those
// runs started, with the children's own continue-as-new runs.
func Collect(ctx context.Context, fetch Fetch, workflowID string) ([]Run, error) {
	latest, err := fetch(ctx, workflowID, "")
	if err != nil {
		return nil, fmt.Errorf("timing: read %s: %w", workflowID, err)
	}
	if len(latest) == 0 {
		return nil, fmt.Errorf("timing: read %s: empty history", workflowID)
	}
	first := latest[0].GetWorkflowExecutionStartedEventAttributes().GetFirstExecutionRunId()
	if first == "" {
		return nil, fmt.Errorf("timing: read %s: the first event does not name the first run", workflowID)
	}
	c := collector{fetch: fetch, seen: map[string]bool{}}
	if err := c.chain(ctx, workflowID, first); err != nil {
		return nil, err
	}
	return c.runs, nil
}

type collector struct {
	fetch Fetch
	seen  map[string]bool // workflowID + "/" + runID
	runs  []Run
}

// chain reads a run, the runs it continued as, and the children of each.
func (c *collector) chain(ctx context.Context, workflowID, runID string) error {
	for runID != "" {
		key := workflowID + "/" + runID
		if c.seen[key] {
			return nil
		}
		c.seen[key] = true
		events, err := c.fetch(ctx, workflowID, runID)
		if err != nil {
			return fmt.Errorf("timing: read %s run %s: %w", workflowID, runID, err)
		}
		c.runs = append(c.runs, Run{WorkflowID: workflowID, RunID: runID, Events: events})
		runID = ""
		for _, ev := range events {
			if a := ev.GetChildWorkflowExecutionStartedEventAttributes(); a != nil {
				if err := c.chain(ctx, a.GetWorkflowExecution().GetWorkflowId(), a.GetWorkflowExecution().GetRunId()); err != nil {
					return err
				}
			}
			if a := ev.GetWorkflowExecutionContinuedAsNewEventAttributes(); a != nil {
				runID = a.GetNewExecutionRunId()
			}
		}
	}
	return nil
}

// Dist summarises a set of durations. Percentiles are nearest-rank: p50 is the
// smallest value at least half of the values do not exceed.
type Dist struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	Max   float64 `json:"max_ms"`
}

func distOf(ds []time.Duration) Dist {
	if len(ds) == 0 {
		return Dist{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := func(p int) time.Duration { return s[(p*len(s)+99)/100-1] }
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	return Dist{Count: len(s), P50: ms(rank(50)), P90: ms(rank(90)), Max: ms(s[len(s)-1])}
}

// Report is where the time of a set of runs went.
type Report struct {
	// Runs counts the workflow runs read, by workflow type.
	Runs map[string]int `json:"runs"`
	// WorkflowTasks counts the workflow tasks completed, by workflow type.
	WorkflowTasks map[string]int `json:"workflow_tasks"`
	// WorkflowTaskDispatch is WorkflowTaskScheduled → WorkflowTaskStarted: the
	// time a workflow task waits for the server to hand it to a worker.
	WorkflowTaskDispatch Dist `json:"workflow_task_dispatch"`
	// WorkflowTaskRun is WorkflowTaskStarted → WorkflowTaskCompleted: the worker's
	// time on the task, local activities run inside it included.
	WorkflowTaskRun Dist `json:"workflow_task_run"`
	// ActivityDispatch is ActivityTaskScheduled → ActivityTaskStarted of first
	// attempts (a retried activity's Started event is its last attempt's, so its
	// wait would include the retries).
	ActivityDispatch Dist `json:"activity_dispatch"`
	// ActivityRun is ActivityTaskStarted → Completed, Failed or TimedOut of the
	// last attempt, by activity type.
	ActivityRun map[string]Dist `json:"activity_run"`
	// LocalActivityRun is read from the SDK's local-activity markers, by
	// activity type: each marker carries the workflow clock when its result was
	// taken, so a local activity's time is its marker time minus the previous
	// marker's in the same workflow task (or the task's start, for the first).
	LocalActivityRun map[string]Dist `json:"local_activity_run"`
	// UnreadMarkers counts local-activity markers whose data could not be
	// decoded (e.g. a payload codec encrypts them); they are not in
	// LocalActivityRun.
	UnreadMarkers int `json:"unread_markers,omitempty"`
	// ChildWorkflowStart is StartChildWorkflowExecutionInitiated →
	// ChildWorkflowExecutionStarted in the parent's history.
	ChildWorkflowStart Dist `json:"child_workflow_start"`
	// WallSeconds is the first run's start to the last event of the first workflow's
	// last run (the root of Collect).
	WallSeconds float64 `json:"wall_s"`
}

// Row is one line of a report, for printing in a stable order.
type Row struct {
	Name string
	Dist Dist
}

// Rows lists the distributions: dispatch first, then run times by type in
// name order.
func (r Report) Rows() []Row {
	rows := []Row{{"workflow task dispatch", r.WorkflowTaskDispatch}, {"workflow task run", r.WorkflowTaskRun},
		{"activity dispatch", r.ActivityDispatch}, {"child workflow start", r.ChildWorkflowStart}}
	for _, byType := range []struct {
		prefix string
		m      map[string]Dist
	}{{"activity ", r.ActivityRun}, {"local activity ", r.LocalActivityRun}} {
		names := make([]string, 0, len(byType.m))
		for n := range byType.m {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			rows = append(rows, Row{byType.prefix + n, byType.m[n]})
		}
	}
	return rows
}

// localActivityMarker is the part of the Go SDK's local-activity marker data
// ("data" detail of a "LocalActivity" marker) that timing reads.
type localActivityMarker struct {
	ActivityType string
	ReplayTime   time.Time
}

// Analyse measures a set of runs (as Collect returns them).
func Analyse(runs []Run) Report {
	a := analyser{r: Report{Runs: map[string]int{}, WorkflowTasks: map[string]int{}, ActivityRun: map[string]Dist{}, LocalActivityRun: map[string]Dist{}},
		actRun: map[string][]time.Duration{}, laRun: map[string][]time.Duration{}, dc: converter.GetDefaultDataConverter()}
	for _, run := range runs {
		if len(run.Events) > 0 {
			a.run(run)
		}
	}
	r := a.r
	r.WorkflowTaskDispatch, r.WorkflowTaskRun = distOf(a.wtDispatch), distOf(a.wtRun)
	r.ActivityDispatch, r.ChildWorkflowStart = distOf(a.actDispatch), distOf(a.childStart)
	for n, ds := range a.actRun {
		r.ActivityRun[n] = distOf(ds)
	}
	for n, ds := range a.laRun {
		r.LocalActivityRun[n] = distOf(ds)
	}
	r.WallSeconds = wall(runs)
	return r
}

// analyser gathers the durations of Analyse's report, run by run.
type analyser struct {
	r                                          Report
	wtDispatch, wtRun, actDispatch, childStart []time.Duration
	actRun, laRun                              map[string][]time.Duration // by activity type
	dc                                         converter.DataConverter
	// Of the run being read: its events by ID, and the workflow clock after
	// the latest local activity of each workflow task, keyed by the task's
	// completed event.
	byID   map[int64]*historypb.HistoryEvent
	lastLA map[int64]time.Time
}

// run reads one run's events in order.
func (a *analyser) run(run Run) {
	wfType := run.Events[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowType().GetName()
	a.r.Runs[wfType]++
	a.byID = make(map[int64]*historypb.HistoryEvent, len(run.Events))
	a.lastLA = map[int64]time.Time{}
	for _, ev := range run.Events {
		a.byID[ev.GetEventId()] = ev
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED:
			if d, ok := a.since(ev, ev.GetWorkflowTaskStartedEventAttributes().GetScheduledEventId()); ok {
				a.wtDispatch = append(a.wtDispatch, d)
			}
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			a.r.WorkflowTasks[wfType]++
			if d, ok := a.since(ev, ev.GetWorkflowTaskCompletedEventAttributes().GetStartedEventId()); ok {
				a.wtRun = append(a.wtRun, d)
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			at := ev.GetActivityTaskStartedEventAttributes()
			if d, ok := a.since(ev, at.GetScheduledEventId()); ok && at.GetAttempt() <= 1 {
				a.actDispatch = append(a.actDispatch, d)
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, enumspb.EVENT_TYPE_ACTIVITY_TASK_FAILED, enumspb.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
			sched, started := activityIDs(ev)
			name := a.byID[sched].GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
			if d, ok := a.since(ev, started); ok && name != "" {
				a.actRun[name] = append(a.actRun[name], d)
			}
		case enumspb.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED:
			if d, ok := a.since(ev, ev.GetChildWorkflowExecutionStartedEventAttributes().GetInitiatedEventId()); ok {
				a.childStart = append(a.childStart, d)
			}
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			a.marker(ev.GetMarkerRecordedEventAttributes())
		}
	}
}

// since is the time from the run's event earlierID to ev; false when the
// run has no such event.
func (a *analyser) since(ev *historypb.HistoryEvent, earlierID int64) (time.Duration, bool) {
	e, ok := a.byID[earlierID]
	if !ok {
		return 0, false
	}
	return ev.GetEventTime().AsTime().Sub(e.GetEventTime().AsTime()), true
}

// marker reads a local activity's time from its marker: its workflow clock
// minus the previous local activity's of the same workflow task, or the
// task's start for the first.
func (a *analyser) marker(at *historypb.MarkerRecordedEventAttributes) {
	if at.GetMarkerName() != "LocalActivity" {
		return
	}
	var m localActivityMarker
	data := at.GetDetails()["data"].GetPayloads()
	if len(data) != 1 || a.dc.FromPayload(data[0], &m) != nil || m.ActivityType == "" {
		a.r.UnreadMarkers++
		return
	}
	done := at.GetWorkflowTaskCompletedEventId()
	prev, ok := a.lastLA[done]
	if !ok {
		started, found := a.byID[a.byID[done].GetWorkflowTaskCompletedEventAttributes().GetStartedEventId()]
		if !found {
			a.r.UnreadMarkers++
			return
		}
		prev = started.GetEventTime().AsTime()
	}
	a.laRun[m.ActivityType] = append(a.laRun[m.ActivityType], m.ReplayTime.Sub(prev))
	a.lastLA[done] = m.ReplayTime
}

// activityIDs returns the scheduled and started event IDs of an activity's
// closing event.
func activityIDs(ev *historypb.HistoryEvent) (scheduled, started int64) {
	if a := ev.GetActivityTaskCompletedEventAttributes(); a != nil {
		return a.GetScheduledEventId(), a.GetStartedEventId()
	}
	if a := ev.GetActivityTaskFailedEventAttributes(); a != nil {
		return a.GetScheduledEventId(), a.GetStartedEventId()
	}
	a := ev.GetActivityTaskTimedOutEventAttributes()
	return a.GetScheduledEventId(), a.GetStartedEventId()
}

// wall is the time from the first run's first event to the last event of the
// last run with the first run's workflow ID.
func wall(runs []Run) float64 {
	if len(runs) == 0 || len(runs[0].Events) == 0 {
		return 0
	}
	start := runs[0].Events[0].GetEventTime().AsTime()
	end := start
	for _, run := range runs {
		if run.WorkflowID == runs[0].WorkflowID && len(run.Events) > 0 {
			end = run.Events[len(run.Events)-1].GetEventTime().AsTime()
		}
	}
	return end.Sub(start).Seconds()
}
