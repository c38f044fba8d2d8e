package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/workflows"
)

func TestStreamEndToEnd(t *testing.T) {
	t.Parallel() // see TestMain
	env := enginetest.Start(t)
	ctx := context.Background()
	spec := contract.StreamSpec{RunID: "e2e", Corpus: "builtin:stream", Limit: 20, StageSize: 10}
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.StreamWorkflowID(spec.RunID), TaskQueue: contract.TaskQueue},
		workflows.StreamWorkflow, spec)
	require.NoError(t, err)
	var res contract.StreamResult
	require.NoError(t, run.Get(ctx, &res)) // follows continue-as-new to the last run
	require.Equal(t, 20, res.Episodes)

	// The stream continued as new at the stage boundary: two runs, the first closed by continue-as-new.
	list := func(q string) []*workflowservice.ListWorkflowExecutionsResponse {
		resp, err := env.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: q, PageSize: 100})
		require.NoError(t, err)
		return []*workflowservice.ListWorkflowExecutionsResponse{resp}
	}
	var statuses []enumspb.WorkflowExecutionStatus
	enginetest.Eventually(t, 10*time.Second, "two closed stream runs in visibility", func() bool {
		statuses = nil
		for _, e := range list(fmt.Sprintf(`WorkflowId = %q`, contract.StreamWorkflowID("e2e")))[0].Executions {
			if e.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
				return false // visibility catches up after the result
			}
			statuses = append(statuses, e.Status)
		}
		return len(statuses) == 2
	})
	require.ElementsMatch(t, []enumspb.WorkflowExecutionStatus{enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED}, statuses)

	// Every episode exists under its stable ID with its search attributes.
	records, err := env.Engine.Results.Records(ctx, "e2e")
	require.NoError(t, err)
	require.Len(t, records, 20, "the results store holds every episode exactly once")
	seen := map[string]bool{}
	for i, r := range records {
		require.False(t, seen[r.EpisodeID])
		seen[r.EpisodeID] = true
		require.Equal(t, i+1, r.Index)
		stage := i/10 + 1
		want := contract.EpisodeWorkflowID("e2e", 1, stage, i+1, r.CaseID)
		require.Equal(t, want, r.EpisodeID)
		_, tr, err := env.Engine.Results.RecordTrace(ctx, r.EpisodeID)
		require.NoError(t, err)
		require.Contains(t, []string{clinic.MemoryWritten, clinic.MemoryNone}, tr.MemoryWrite, "memory write-back status")
		if len(r.Written) > 0 {
			require.Equal(t, clinic.MemoryWritten, tr.MemoryWrite)
		}
		desc, err := env.Client.DescribeWorkflowExecution(ctx, want, "")
		require.NoError(t, err)
		require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, desc.WorkflowExecutionInfo.Status)
		sa := desc.WorkflowExecutionInfo.SearchAttributes.GetIndexedFields()
		for _, k := range []string{"ClinevoRun", "CaseId", "Condition", "Kind", "Stage", "Pass", "EpisodeIndex", "Score"} {
			require.Contains(t, sa, k, "episode %s lacks search attribute %s", want, k)
		}
	}
	enginetest.RequireSameAsReference(t, env.Engine.Results, env.Engine.Memory, spec)

	// Bad input fails the stream before any episode runs.
	for name, bad := range map[string]contract.StreamSpec{
		"unknown corpus":   {RunID: "bad-corpus", Corpus: "nope.jsonl"},
		"unknown case":     {RunID: "bad-case", Corpus: "builtin:stream", CaseIDs: []string{"stream-0001", "no-such-case"}},
		"invalid budget":   {RunID: "bad-budget", Corpus: "builtin:stream", Settings: enginetest.Tweak(func(s *settings.Settings) { s.Evolver.MemoryBudget = -1 })},
		"invalid interval": {RunID: "bad-interval", Corpus: "builtin:stream", Settings: enginetest.Tweak(func(s *settings.Settings) { s.Evolver.UpdateInterval = -2 })},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.StreamWorkflowID(bad.RunID), TaskQueue: contract.TaskQueue},
				workflows.StreamWorkflow, bad)
			require.NoError(t, err)
			err = r.Get(ctx, nil)
			require.Error(t, err)
			want := map[string]string{"unknown corpus": "nope.jsonl", "unknown case": `case "no-such-case" is not in corpus builtin:stream`,
				"invalid budget": "memory_budget (B_M) must be at least 1", "invalid interval": "update_interval must be at least 1"}[name]
			require.ErrorContains(t, err, want)
			recs, err := env.Engine.Results.Records(ctx, bad.RunID)
			require.NoError(t, err)
			require.Empty(t, recs)
			resp, err := env.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: fmt.Sprintf(`WorkflowId STARTS_WITH %q AND WorkflowType = "EpisodeWorkflow"`, bad.RunID+"/")})
			require.NoError(t, err)
			require.Empty(t, resp.Executions, "no episode started")
		})
	}
	enginetest.Eventually(t, 10*time.Second, "a visibility query over episode search attributes", func() bool {
		resp := list(`ClinevoRun = "e2e" AND Kind = "stream" AND WorkflowType = "EpisodeWorkflow" AND Stage = 2 AND Score >= 0`)[0]
		return len(resp.Executions) == 10
	})
}

// TestStreamInputWithUnknownFieldFails (issue 39 §5): the input the
// Temporal CLI sends, a JSON object, with a key that is no field of a
// stream ("rules": true used to be ignored, and the stream ran with its
// rule book), fails the stream at its start naming the key.
func TestStreamInputWithUnknownFieldFails(t *testing.T) {
	t.Parallel() // see TestMain
	env := enginetest.Start(t)
	ctx := context.Background()
	input := map[string]any{"run_id": "unknown-key", "corpus": "builtin:stream", "limit": 2, "stage_size": 2, "memory": "empty", "rules": false}
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.StreamWorkflowID("unknown-key"), TaskQueue: contract.TaskQueue},
		"StreamWorkflow", input)
	require.NoError(t, err)
	err = run.Get(ctx, nil)
	require.ErrorContains(t, err, `stream spec: unknown field(s) "rules"`)
	recs, err := env.Engine.Results.Records(ctx, "unknown-key")
	require.NoError(t, err)
	require.Empty(t, recs, "no episode played")
}
