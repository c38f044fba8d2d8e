package progress

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
)

// unknown is a Temporal that knows no workflow: every poll of the rows
// fails, and is retried.
type unknown struct{ client.Client }

func (unknown) DescribeWorkflowExecution(context.Context, string, string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	return nil, serviceerror.NewNotFound("no such workflow")
}

// finished is a workflow run that has ended with result, or failed with err.
type finished struct {
	client.WorkflowRun
	result any
	err    error
}

func (f finished) Get(_ context.Context, v any) error {
	if f.err != nil || v == nil {
		return f.err
	}
	b, err := json.Marshal(f.result)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// TestOutputJSON: with --json a waited-for stream or experiment prints its
// result, indented, once it ends; a run that fails is the error, and
// nothing is printed.
func TestOutputJSON(t *testing.T) {
	ctx := context.Background()
	var out, progress strings.Builder
	o := Output{Out: &out, Progress: &progress, JSON: true}
	stream := contract.StreamResult{Run: "r1", Episodes: 4, LastEpisode: 4, StageEnds: []int{2, 4}}
	require.NoError(t, o.Stream(ctx, unknown{}, finished{result: stream}, "r1"))
	require.Contains(t, out.String(), "{\n  \"run\": \"r1\",\n  \"episodes\": 4,\n")
	var got contract.StreamResult
	require.NoError(t, json.Unmarshal([]byte(out.String()), &got))
	require.Equal(t, stream, got)

	out.Reset()
	ex := contract.ExperimentResult{Name: "quick", Conditions: []contract.ConditionResult{{Name: "E1"}}}
	require.NoError(t, o.Experiment(ctx, unknown{}, finished{result: ex}, "quick"))
	require.True(t, strings.HasPrefix(out.String(), "{\n  \"name\": \"quick\",\n  \"conditions\": [\n"), out.String())

	out.Reset()
	failed := errors.New("workflow execution error")
	require.ErrorIs(t, o.Stream(ctx, unknown{}, finished{err: failed}, "r1"), failed)
	require.ErrorIs(t, o.Experiment(ctx, unknown{}, finished{err: failed}, "quick"), failed)
	require.Empty(t, out.String())
}

// TestOutputStatus: without --json the status is read once the run ends;
// a status Temporal cannot give is the error.
func TestOutputStatus(t *testing.T) {
	ctx := context.Background()
	var out strings.Builder
	o := Output{Out: &out, Progress: &out, ShowsU: func(string) bool { return true }}
	require.ErrorContains(t, o.Stream(ctx, unknown{}, finished{}, "r1"), "stream r1: no such workflow")
	require.ErrorContains(t, o.Experiment(ctx, unknown{}, finished{}, "quick"), "experiment quick: no such workflow")
}
