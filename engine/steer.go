package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/runstatus"
	"github.com/clinevo/clinevo/settings"
)

// ErrRefused is returned (wrapped) by Steer when the stream refused the
// update: it cannot apply in the stream's state (the error says why), and
// nothing changed.
var ErrRefused = errors.New("refused")

// Steered is a stream's answer to a steering update.
type Steered struct {
	Run    string
	Update string
	// Progress is the stream's progress after the change; nil when the
	// signal was sent instead.
	Progress *contract.Progress
	// Signalled, when set, says why the update was not taken and the
	// signal of the same name was sent: the stream takes it when it next
	// runs, unchecked and without an answer.
	Signalled string
}

// SteerWait is how long Steer waits for a worker to take an update before
// it sends the signal instead: a worker that runs the stream takes one in a
// workflow task, in milliseconds; 30 s covers a loaded machine (clinevo's
// choice). Longer, a worker is not running or the stream's workflow task
// is failing.
const SteerWait = 30 * time.Second

// Steer sends the stream of run the update name (contract.UpdatePause,
// UpdateResume, UpdateStop, UpdateRaiseBudget, UpdateRaiseExperimentBudget;
// budget is the raise's new cap, nil for the others) and waits until the
// stream has taken it. A refusal is an error wrapping ErrRefused. A stream
// whose worker does not know the update (a clinevo from before updates), a
// server that refuses updates, or no worker taking it within SteerWait, gets
// the signal of the same name instead, as Steered.Signalled says.
func Steer(ctx context.Context, c client.Client, run, name string, budget *settings.Budget) (Steered, error) {
	return steerWithin(ctx, c, run, name, budget, SteerWait)
}

func steerWithin(ctx context.Context, c client.Client, run, name string, budget *settings.Budget, wait time.Duration) (Steered, error) {
	out := Steered{Run: run, Update: name}
	p, err := update(ctx, c, run, name, budget, wait)
	if err == nil {
		out.Progress = &p
		return out, nil
	}
	why := updateUnknown(err, name)
	var timeout *client.WorkflowUpdateServiceTimeoutOrCanceledError
	if why == "" && errors.As(err, &timeout) && ctx.Err() == nil {
		// The update may yet reach the stream with the signal, when a
		// worker runs it: both make the same change, so the second adds
		// nothing (or is refused).
		why = fmt.Sprintf("no worker took the update within %s (none is running, or the stream's workflow task fails: "+
			"clinevo stream status %s says which)", wait, run)
	}
	if why != "" {
		if err := c.SignalWorkflow(ctx, contract.StreamWorkflowID(run), "", name, signalArg(budget)); err != nil {
			return out, fmt.Errorf("%s stream %s: %s, and its signal failed: %w", name, run, why, err)
		}
		out.Signalled = why
		return out, nil
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == contract.UpdateRefused {
		return out, fmt.Errorf("%s stream %s: %w: %s", name, run, ErrRefused, app.Message())
	}
	return out, fmt.Errorf("%s stream %s: %w", name, run, err)
}

// update sends the update and waits up to wait for the stream's answer.
func update(ctx context.Context, c client.Client, run, name string, budget *settings.Budget, wait time.Duration) (contract.Progress, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var args []any
	if budget != nil {
		args = []any{*budget}
	}
	var p contract.Progress
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: contract.StreamWorkflowID(run), UpdateName: name, Args: args,
		WaitForStage: client.WorkflowUpdateStageCompleted})
	if err == nil {
		err = h.Get(ctx, &p)
	}
	return p, err
}

// signalArg is the signal's argument: the budget of a raise, none else.
func signalArg(budget *settings.Budget) any {
	if budget == nil {
		return nil
	}
	return *budget
}

// updateUnknown says why update name cannot reach the stream where the
// signal can: its worker rejected it as unknown (the SDK's "unknown update
// NAME. KnownUpdates=[...]": a worker of a clinevo from before updates), or
// the server refuses updates (frontend.enableUpdateWorkflowExecution off);
// "" for any other error.
func updateUnknown(err error, name string) string {
	var app *temporal.ApplicationError
	var denied *serviceerror.PermissionDenied
	switch {
	case errors.As(err, &app) && strings.HasPrefix(app.Message(), "unknown update "+name+"."):
		return "its worker does not know the update (a clinevo from before updates)"
	case errors.As(err, &denied) && strings.Contains(denied.Message, "UpdateWorkflowExecution"):
		return "the Temporal server refuses updates (frontend.enableUpdateWorkflowExecution is off)"
	}
	return ""
}

// String is what the command line prints: the stream's status after the
// change, with the caps in force, or that the signal was sent instead.
func (s Steered) String() string {
	if s.Progress == nil {
		return fmt.Sprintf("stream %s: sent the %s signal instead: %s; it is taken unchecked (clinevo stream status %s shows the stream's state)",
			s.Run, s.Update, s.Signalled, s.Run)
	}
	p := s.Progress
	played := fmt.Sprintf("%d of %d episodes played", p.Cursor, p.Total)
	if p.Total == 0 {
		played = fmt.Sprintf("%d episodes played", p.Cursor) // it has not read its plan yet
	}
	line := fmt.Sprintf("stream %s: %s (%s)", s.Run, runstatus.ProgressStatus(*p), played)
	if b := p.Budget; b != nil && (!b.IsZero() || s.Update == contract.UpdateRaiseBudget) {
		line += "; budget: " + runstatus.CapText(p.Spend, *b)
	}
	if b := p.ExperimentBudget; b != nil {
		line += "; experiment budget: " + runstatus.CapText(p.ExperimentSpend, *b)
	}
	return line
}

// ConditionRaised is one stream condition's answer to an experiment's new
// cap: Err when it refused it or could not be reached.
type ConditionRaised struct {
	Condition string
	Steered
	Err error
}

// String is the line the command line prints for a condition that took
// the cap.
func (r ConditionRaised) String() string {
	return "condition " + r.Condition + ": " + r.Steered.String()
}

// RaiseExperimentBudget sends the experiment's new cap b to every live
// (running, paused or waiting) stream condition of ex, one update each
// (Steer, UpdateRaiseExperimentBudget), and returns their answers. It tries
// every condition; the error joins the failures (a refusal wraps
// ErrRefused), or says that no stream condition is live.
func RaiseExperimentBudget(ctx context.Context, c client.Client, ex runstatus.Experiment, b settings.Budget) ([]ConditionRaised, error) {
	var out []ConditionRaised
	var errs []error
	for _, cd := range ex.Conditions {
		if cd.Kind != contract.KindStream || !runstatus.Live(cd.Status) {
			continue
		}
		s, err := Steer(ctx, c, cd.Run, contract.UpdateRaiseExperimentBudget, &b)
		if err != nil {
			err = fmt.Errorf("raise the experiment budget of %s: condition %s: %w", ex.Name, cd.Name, err)
			errs = append(errs, err)
		}
		out = append(out, ConditionRaised{Condition: cd.Name, Steered: s, Err: err})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("experiment %s: no stream condition is running, paused or waiting: nothing to raise", ex.Name)
	}
	return out, errors.Join(errs...)
}
