package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/activities/acts"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/settings"
)

// versionWaitOut is the change ID of waiting out outages: from version 1 a
// transient failure of an activity (fault.Class) is retried by the waiter,
// visibly, instead of failing the workflow. A history without the marker
// fails where it failed.
const versionWaitOut = "wait-out-outages"

// AttrWaiting holds, while a workflow waits out a failing dependency, the
// dependency's name (results/postgres, model roles.doctor, ...): `temporal
// workflow list --query 'ClinevoWaiting IS NOT NULL'` lists the waiting
// workflows, each with its ClinevoRun.
var AttrWaiting = temporal.NewSearchAttributeKeyKeyword("ClinevoWaiting")

// waiter runs a workflow's activities and waits out their transient failures
// as the run's durability settings say: a failed attempt is retried after a
// backoff that doubles from durability.InitialBackoff up to max_backoff (or
// what a rate-limited dependency asked for), until the dependency has been
// failing for max_outage. While it waits, the workflow answers QueryWaiting
// with what it waits for, carries AttrWaiting, and logs one line per backoff.
// A permanent failure (fault.Class) returns at once. The Temporal SDK's own
// retries are off (retryOff), so that every retry is a step the history
// records and the queries can see: a local activity's SDK retries would be
// invisible to both, and bounded by its start-to-close timeout.
type waiter struct {
	dur   settings.Durability // zero fields: the defaults, recorded at the first wait (SideEffect)
	state *contract.Waiting
	log   log.Logger
}

// newWaiter makes the waiter of a workflow and installs its waiting query.
func newWaiter(ctx workflow.Context, d settings.Durability) (*waiter, error) {
	w := &waiter{dur: d, log: workflow.GetLogger(ctx)}
	if err := workflow.SetQueryHandler(ctx, contract.QueryWaiting, func() (*contract.Waiting, error) { return w.state, nil }); err != nil {
		return nil, err
	}
	return w, nil
}

// retryOff is the retry policy of every activity and local activity: one
// attempt, since the waiter does the retrying.
var retryOff = &temporal.RetryPolicy{MaximumAttempts: 1}

// local runs the local activity of a name (options in ctx) until it
// succeeds, fails permanently, or its dependency has been failing for
// max_outage.
func (w *waiter) local(ctx workflow.Context, name string, result any, args ...any) error {
	return w.run(ctx, name, func() workflow.Future { return workflow.ExecuteLocalActivity(ctx, name, args...) }, result)
}

// activity runs a regular activity (options in ctx) as local does.
func (w *waiter) activity(ctx workflow.Context, name string, result any, args ...any) error {
	return w.run(ctx, name, func() workflow.Future { return workflow.ExecuteActivity(ctx, name, args...) }, result)
}

// starter starts an activity by name through a waiter: its local or activity.
type starter func(ctx workflow.Context, name string, result any, args ...any) error

// call runs activity a on in with start, decoding its result into out (nil:
// the result is not read, as for an activity that returns none or from a
// history that recorded none). The activity is called by its registered
// name, so the workflows do not link the activities' implementation.
func call[In, Out any](ctx workflow.Context, start starter, a acts.Activity[In, Out], in In, out *Out) error {
	if out == nil {
		return start(ctx, a.Name(), nil, in)
	}
	return start(ctx, a.Name(), out, in)
}

// call2 is call for an activity of two arguments.
func call2[In1, In2, Out any](ctx workflow.Context, start starter, a acts.Activity2[In1, In2, Out], in1 In1, in2 In2, out *Out) error {
	if out == nil {
		return start(ctx, a.Name(), nil, in1, in2)
	}
	return start(ctx, a.Name(), out, in1, in2)
}

func (w *waiter) run(ctx workflow.Context, name string, start func() workflow.Future, result any) error {
	var since time.Time
	for attempt := 1; ; attempt++ {
		err := start().Get(ctx, result)
		if err == nil {
			return w.done(ctx)
		}
		f, ok := transient(err, name)
		if !ok || workflow.GetVersion(ctx, versionWaitOut, workflow.DefaultVersion, 1) < 1 {
			return err
		}
		if err := w.resolve(ctx); err != nil {
			return err
		}
		now := workflow.Now(ctx)
		if attempt == 1 {
			since = now
		}
		backoff := w.backoff(attempt, f.retryAfter)
		if limit := time.Duration(w.dur.MaxOutage); now.Add(backoff).Sub(since) > limit {
			if derr := w.done(ctx); derr != nil {
				return derr
			}
			return temporal.NewNonRetryableApplicationError(fmt.Sprintf("%s (%s) kept failing for %v, %d attempts, longer than durability.max_outage %v",
				f.dependency, f.class, now.Sub(since).Round(time.Second), attempt, limit), f.class, err, f.dependency)
		}
		changed := w.state == nil || w.state.Dependency != f.dependency
		w.state = &contract.Waiting{Activity: name, Dependency: f.dependency, Class: f.class, Since: since, Attempts: attempt,
			NextTry: now.Add(backoff), Error: f.msg}
		if changed {
			if err := workflow.UpsertTypedSearchAttributes(ctx, AttrWaiting.ValueSet(f.dependency)); err != nil {
				return err
			}
		}
		// Messages of classified failures hold no key or password (the
		// model client never quotes headers, pgconn redacts passwords).
		w.log.Info("waiting for a dependency", "dependency", f.dependency, "class", f.class, "activity", name, "attempt", attempt,
			"retry_in", backoff.String(), "since", since.UTC().Format(time.RFC3339), "error", f.msg)
		if err := workflow.Sleep(ctx, backoff); err != nil {
			return err
		}
	}
}

// done ends a wait, if there was one: the dependency came back (or the
// waiter gave up on it).
func (w *waiter) done(ctx workflow.Context) error {
	if w.state == nil {
		return nil
	}
	s := w.state
	w.state = nil
	w.log.Info("dependency back", "dependency", s.Dependency, "class", s.Class, "activity", s.Activity, "attempts", s.Attempts,
		"waited", workflow.Now(ctx).Sub(s.Since).Round(time.Millisecond).String())
	return workflow.UpsertTypedSearchAttributes(ctx, AttrWaiting.ValueUnset())
}

// resolve fills the durability's zero fields with the defaults (settings
// recorded before durability was a setting), recorded as a side effect so a
// replay keeps them whatever the defaults are by then.
func (w *waiter) resolve(ctx workflow.Context) error {
	if w.dur.MaxOutage > 0 && w.dur.MaxBackoff > 0 {
		return nil
	}
	d := w.dur
	return workflow.SideEffect(ctx, func(workflow.Context) any { return d.OrDefault() }).Get(&w.dur)
}

// backoff is the wait before attempt+1: doubling from the initial backoff,
// at most max_backoff, or what the dependency asked for when that is longer.
func (w *waiter) backoff(attempt int, asked time.Duration) time.Duration {
	d, limit := w.dur.InitialBackoff(), time.Duration(w.dur.MaxBackoff)
	for i := 1; i < attempt && d < limit; i++ {
		d *= 2
	}
	return min(max(min(d, limit), asked), time.Duration(w.dur.MaxOutage))
}

// failure is a transient failure as the waiter sees it.
type failure struct {
	class, dependency, msg string
	retryAfter             time.Duration
}

// transient reads an activity's failure: an application error of a
// transient fault class (activities.temporalError), an error of another type
// that is retryable (from an older worker: unknown), or a timeout (the
// worker died, or the attempt hung). Permanent classes, non-retryable
// errors, panics and cancellations are not transient.
func transient(err error, activity string) (failure, bool) {
	var canceled *temporal.CanceledError
	var panicked *temporal.PanicError
	var timeout *temporal.TimeoutError
	var ae *temporal.ApplicationError
	switch {
	case errors.As(err, &canceled), errors.As(err, &panicked):
		return failure{}, false
	case errors.As(err, &timeout):
		return failure{class: string(fault.Timeout), dependency: "activity " + activity, msg: err.Error()}, true
	case errors.As(err, &ae):
		c := fault.Class(ae.Type())
		if ae.NonRetryable() || !c.Transient() {
			return failure{}, false
		}
		switch c {
		case fault.Unavailable, fault.Timeout, fault.ServerError, fault.RateLimited, fault.Unknown:
		default:
			c = fault.Unknown // an error type that is no class
		}
		f := failure{class: string(c), dependency: "activity " + activity, msg: ae.Message(), retryAfter: ae.NextRetryDelay()}
		if ae.HasDetails() {
			var dep string
			if ae.Details(&dep) == nil && dep != "" && dep != "unknown" {
				f.dependency = dep
			}
		}
		return f, true
	}
	return failure{class: string(fault.Unknown), dependency: "activity " + activity, msg: err.Error()}, true
}

// stopped is the error a stream or an experiment fails with: what stopped it
// and the command that continues it after the fix. A child workflow's error
// is its parent's to explain, and continuing as new is not a failure.
func stopped(ctx workflow.Context, what, run, command string, err error) error {
	var canceled *temporal.CanceledError
	if err == nil || workflow.IsContinueAsNewError(err) || errors.As(err, &canceled) || workflow.GetInfo(ctx).ParentWorkflowExecution != nil {
		return err
	}
	class := "stopped"
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		class = ae.Type()
	}
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf("%s %s stopped (fix the cause that follows, then `clinevo %s %s` continues it after its last completed episode)",
		what, run, command, run), class, err)
}

// firstRun is the run ID of the first run of a workflow's chain (across
// continue-as-new): what a stream or an experiment claims its run ID with.
func firstRun(ctx workflow.Context) string {
	info := workflow.GetInfo(ctx)
	if info.FirstRunID != "" {
		return info.FirstRunID
	}
	return info.WorkflowExecution.RunID
}
