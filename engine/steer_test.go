package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/runstatus"
	"github.com/clinevo/clinevo/settings"
)

// oldStream stands for the stream of a clinevo from before updates: it
// takes the steering signals only. It ends with the budget of the raise that
// follows a pause.
func oldStream(ctx workflow.Context) (settings.Budget, error) {
	workflow.GetSignalChannel(ctx, contract.SignalPause).Receive(ctx, nil)
	var b settings.Budget
	workflow.GetSignalChannel(ctx, contract.SignalRaiseBudget).Receive(ctx, &b)
	return b, nil
}

// TestSteerFallsBackToTheSignal: on the embedded server, a stream whose
// worker knows no update (a worker of its own task queue running oldStream)
// rejects the pause and raise updates as unknown; Steer sends the signals
// instead and says so, and the stream takes both, the raise's budget too.
func TestSteerFallsBackToTheSignal(t *testing.T) {
	t.Parallel() // see TestMain
	env := enginetest.Start(t)
	ctx := context.Background()
	const queue = "clinevo-before-updates"
	w := worker.New(env.Client, queue, worker.Options{})
	w.RegisterWorkflowWithOptions(oldStream, workflow.RegisterOptions{Name: "StreamWorkflow"})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.StreamWorkflowID("old"), TaskQueue: queue}, oldStream)
	require.NoError(t, err)

	s, err := engine.Steer(ctx, env.Client, "old", contract.UpdatePause, nil)
	require.NoError(t, err)
	require.Nil(t, s.Progress)
	require.Equal(t, "stream old: sent the pause signal instead: its worker does not know the update (a clinevo from before updates); "+
		"it is taken unchecked (clinevo stream status old shows the stream's state)", s.String())
	s, err = engine.Steer(ctx, env.Client, "old", contract.UpdateRaiseBudget, &settings.Budget{USD: 7, Tokens: 9})
	require.NoError(t, err)
	require.Contains(t, s.String(), "sent the raise-budget signal instead")
	var got settings.Budget
	require.NoError(t, run.Get(ctx, &got))
	require.Equal(t, settings.Budget{USD: 7, Tokens: 9}, got, "the signal carried the raise")
}

// TestSteerWithoutAWorker: a stream no worker runs (its task queue has
// none) takes no update; after the wait Steer sends the signal, which the
// history holds for when a worker comes.
func TestSteerWithoutAWorker(t *testing.T) {
	t.Parallel() // see TestMain
	env := enginetest.Start(t)
	ctx := context.Background()
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.StreamWorkflowID("idle"), TaskQueue: "no-worker"}, "StreamWorkflow")
	require.NoError(t, err)
	s, err := engine.SteerWithin(ctx, env.Client, "idle", contract.UpdatePause, nil, 2*time.Second)
	require.NoError(t, err)
	require.Equal(t, "stream idle: sent the pause signal instead: no worker took the update within 2s (none is running, or the stream's "+
		"workflow task fails: clinevo stream status idle says which); it is taken unchecked (clinevo stream status idle shows the stream's state)", s.String())
	h, err := runstatus.History(ctx, env.Client, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	var signals []string
	for _, e := range h.GetEvents() {
		if a := e.GetWorkflowExecutionSignaledEventAttributes(); a != nil {
			signals = append(signals, a.GetSignalName())
		}
	}
	require.Equal(t, []string{contract.SignalPause}, signals)
}

// deniedClient is a client of a server that refuses updates
// (frontend.enableUpdateWorkflowExecution off, the server's own message); it
// records the signals sent instead.
type deniedClient struct {
	client.Client
	signals []string
	args    []any
}

func (c *deniedClient) UpdateWorkflow(context.Context, client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	return nil, serviceerror.NewPermissionDenied("UpdateWorkflowExecution operation is disabled on this namespace.", "")
}

func (c *deniedClient) SignalWorkflow(_ context.Context, id, _, name string, arg any) error {
	c.signals = append(c.signals, id+" "+name)
	c.args = append(c.args, arg)
	return nil
}

// TestSteerOnAServerWithoutUpdates: a server that refuses updates gets the
// signal of the same name, with the raise's budget, and Steer says why.
func TestSteerOnAServerWithoutUpdates(t *testing.T) {
	c := &deniedClient{}
	s, err := engine.Steer(context.Background(), c, "r1", contract.UpdateStop, nil)
	require.NoError(t, err)
	require.Contains(t, s.String(), "stream r1: sent the stop signal instead: the Temporal server refuses updates")
	_, err = engine.Steer(context.Background(), c, "r1", contract.UpdateRaiseBudget, &settings.Budget{USD: 3})
	require.NoError(t, err)
	require.Equal(t, []string{"r1/stream stop", "r1/stream raise-budget"}, c.signals)
	require.Equal(t, []any{nil, settings.Budget{USD: 3}}, c.args)
}
