package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/benchmarks/medinquire"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// learnerInputs records what the process grader and the evolver are given.
type learnerInputs struct {
	mu      sync.Mutex
	inputs  []string // each input as JSON, the trace left out
	traces  []string // the trace parts (events and final) as JSON
	keys    int      // grader calls with a write-back key
	truths  int      // evolver calls with a write-back key
	graded  int
	evolved int
}

type recordingGrader struct {
	rec   *learnerInputs
	inner grader.ProcessGrader
}

func (g recordingGrader) GradeProcess(ctx context.Context, in grader.ProcessInput, key *grader.Key) (grader.ProcessGrade, error) {
	g.rec.add(in.Events, in.Final, struct {
		grader.ProcessInput
		Key *grader.Key
	}{grader.ProcessInput{Outcome: in.Outcome, Prices: in.Prices, YieldOnly: in.YieldOnly}, key}, key != nil, true)
	return g.inner.GradeProcess(ctx, in, key)
}

type recordingEvolver struct {
	rec   *learnerInputs
	inner evolver.Evolver
}

func (e recordingEvolver) Evolve(ctx context.Context, cfg settings.Evolver, in evolver.Input, truth *grader.Key, rules []clinic.Rule) (evolver.Output, error) {
	rest := in
	rest.Events, rest.Final, rest.Forbidden = nil, clinic.FinalOutput{}, evolver.Forbidden{}
	e.rec.add(in.Events, in.Final, struct {
		evolver.Input
		Truth *grader.Key
	}{rest, truth}, truth != nil, false)
	return e.inner.Evolve(ctx, cfg, in, truth, rules)
}

func (r *learnerInputs) add(events []clinic.Event, final clinic.FinalOutput, rest any, key, grading bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, _ := json.Marshal(rest) // plain data
	t, _ := json.Marshal(struct {
		Events []clinic.Event
		Final  clinic.FinalOutput
	}{events, final})
	r.inputs, r.traces = append(r.inputs, string(b)), append(r.traces, string(t))
	switch {
	case grading:
		r.graded++
		if key {
			r.keys++
		}
	default:
		r.evolved++
		if key {
			r.truths++
		}
	}
}

// managerStrings are the manager-view values of a corpus's first n cases.
func managerStrings(t *testing.T, ref string, n int) []string {
	t.Helper()
	cp, err := enginetest.Library(t).Load(ref)
	require.NoError(t, err)
	var out []string
	for _, c := range cp.Cases[:n] {
		m := c.Manager
		out = append(append(append(append(append(out, m.Diagnosis.Name), m.Diagnosis.Acceptable...), m.Evidence...), m.Management...), m.UnsafeManagement...)
		if m.Referral != nil && m.Referral.Destination != "" {
			out = append(out, m.Referral.Destination)
		}
	}
	return out
}

// TestEvoClinicianShortRun runs benchmarks/medinquire/evoclinician.yaml (fourteen conditions) on its first 10
// cases, in two stages of 5, end to end: every condition finishes, the report draws the running
// means S̄₁:t and C̄₁:t and the time split, and — score-only means score-only —
// no grader or evolver input of any condition carries the write-back key or
// any manager-view value, and neither does any workflow history.
func TestEvoClinicianShortRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs fourteen conditions of 10 episodes on the embedded server")
	}
	rec := &learnerInputs{}
	env := enginetest.StartWith(t, enginetest.Quiet{}, enginetest.WrapRoles(func(r *runner.Roles) {
		r.Grader, r.Evolver = recordingGrader{rec, r.Grader}, recordingEvolver{rec, r.Evolver}
	}))
	ctx := context.Background()
	spec := enginetest.Spec(t, "evoclinician.yaml", medinquire.Protocol)
	spec.Name, spec.Limit, spec.StageSize = "evo", 10, 5
	run, err := engine.StartExperiment(ctx, env.Client, env.Engine.Results, "", spec)
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, nil))

	in, err := analysis.Load(ctx, env.Engine.Results, env.Engine.Benchmarks, "evo")
	require.NoError(t, err)
	rep := analysis.Build(in)
	dir := t.TempDir()
	require.NoError(t, analysis.Write(dir, rep, analysis.StoreTraces(ctx, env.Engine.Results)))
	require.Len(t, rep.Conditions, 14)
	for _, c := range rep.Conditions {
		require.Len(t, c.Running, 10, "condition %s: running means over every episode", c.Name)
		require.Equal(t, 10, c.Overall.N)
		require.Positive(t, c.Overall.TimeMS["diagnose"], "condition %s: diagnose time recorded", c.Name)
		require.Positive(t, c.Running[9].Cost, "condition %s: every turn costs", c.Name)
		// The profile reaches the report from the stored run settings: U is
		// MedEvoEval's, and Med-Inquire shows none.
		require.Equal(t, "medinquire", c.Benchmark, c.Name)
		require.False(t, c.DefinesU(), c.Name)
	}
	for _, c := range rep.Comparisons {
		require.NotEqual(t, "U", c.Metric)
	}
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	require.Equal(t, 2, strings.Count(string(page), `class="chart running"`), "the S̄₁:t and C̄₁:t curves")
	require.NotContains(t, string(page), `aria-label="learning curves of U"`)

	// Score-only: the learners never get the key, and no input holds a manager-view value.
	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.Positive(t, rec.graded)
	require.Positive(t, rec.evolved)
	require.Zero(t, rec.keys, "no grader call got the write-back key")
	require.Zero(t, rec.truths, "no evolver call got the write-back key")
	secrets := managerStrings(t, spec.Corpus, 10)
	for i, input := range rec.inputs {
		requireNoneOf(t, input, secrets, fmt.Sprint("learner input ", i))
	}
	// The traces beside them come from the doctor and the environment, which
	// never see the manager view (the DoctorView and the role views are types
	// without it; llm and episode test that no prompt or answer leaks hidden
	// text); a word of a key point ("fever") may of course be in what the
	// patient said, so traces are not searched here.
	// Nor does anything the learning steps leave in the histories of the
	// streams and their episodes: the inputs of Grade, Evolve and Learn where
	// they run as activities, and what they return where they run as local
	// activities (a local activity's input is not in the history).
	learning := map[string]bool{"Grade": true, "Evolve": true, "Learn": true}
	learners := 0
	for _, typ := range []string{"StreamWorkflow", "EpisodeWorkflow"} {
		var token []byte
		executions := 0
		for {
			resp, err := env.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
				Query: `ClinevoRun STARTS_WITH "evo-" AND WorkflowType = "` + typ + `"`, PageSize: 100, NextPageToken: token})
			require.NoError(t, err)
			for _, e := range resp.Executions {
				executions++
				it := env.Client.GetWorkflowHistory(ctx, e.Execution.WorkflowId, e.Execution.RunId, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
				for it.HasNext() {
					ev, err := it.Next()
					require.NoError(t, err)
					if at := ev.GetActivityTaskScheduledEventAttributes(); at != nil && learning[at.ActivityType.GetName()] {
						learners++
						for _, p := range at.Input.GetPayloads() {
							requireNoneOf(t, string(p.GetData()), secrets, at.ActivityType.GetName()+" input in "+e.Execution.WorkflowId)
						}
					}
					if m := ev.GetMarkerRecordedEventAttributes(); m != nil && m.GetMarkerName() == "LocalActivity" {
						data := m.GetDetails()["data"].GetPayloads()
						if len(data) == 0 || !learningMarker(string(data[0].GetData()), learning) {
							continue
						}
						learners++
						for _, p := range m.GetDetails()["result"].GetPayloads() {
							requireNoneOf(t, string(p.GetData()), secrets, "a learning step's result in "+e.Execution.WorkflowId)
						}
					}
				}
			}
			if token = resp.NextPageToken; len(token) == 0 {
				break
			}
		}
		require.GreaterOrEqual(t, executions, 10, "every %s", typ)
	}
	require.Positive(t, learners)
}

// learningMarker reports whether a local activity marker's data names one of the types.
func learningMarker(data string, types map[string]bool) bool {
	var d struct{ ActivityType string }
	if json.Unmarshal([]byte(data), &d) != nil {
		return false
	}
	return types[d.ActivityType]
}

// requireNoneOf fails when text holds any of the values as whole words (after
// textmatch.Normalize: "BV" is found in "the BV result", not in "obvious").
func requireNoneOf(t *testing.T, text string, values []string, where string) {
	t.Helper()
	norm := " " + textmatch.Normalize(text) + " "
	for _, v := range values {
		if n := textmatch.Normalize(v); n != "" {
			require.NotContains(t, norm, " "+n+" ", "%s holds the manager-view value %q", where, v)
		}
	}
}
