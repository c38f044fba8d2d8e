package workflows

import (
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/settings"
)

// A stream is steered (paused, resumed, stopped, its budgets raised) by a
// signal or by the update of the same name. Both make the same change of
// state (pause, resume, stop, raise, raiseExperiment); the update first asks
// its validator, which refuses what cannot apply and changes nothing, and
// answers with the stream's progress after the change. Neither runs a
// command: a history with either replays on the same commands.

// steering is one update: why it cannot apply now ("" when it can) and the
// change it makes.
type steering struct {
	name    string
	refusal func() string
	apply   func()
}

// budgetSteering is an update that carries a budget.
type budgetSteering struct {
	name    string
	refusal func(settings.Budget) string
	apply   func(settings.Budget)
}

// setUpdateHandlers installs the steering updates. startStream installs them
// before the stream's first activity, so an update that reaches a run while
// it validates its spec (every run after a continue-as-new starts so) finds
// its handler instead of being rejected as unknown.
func (s *stream) setUpdateHandlers() error {
	for _, u := range []steering{
		{contract.UpdatePause, s.pauseRefusal, s.pause},
		{contract.UpdateResume, s.resumeRefusal, s.resume},
		{contract.UpdateStop, s.stopRefusal, s.stop},
	} {
		if err := workflow.SetUpdateHandlerWithOptions(s.ctx, u.name, func(workflow.Context) (contract.Progress, error) {
			u.apply()
			return s.progress(), nil
		}, workflow.UpdateHandlerOptions{Validator: func(workflow.Context) error { return refused(u.refusal()) }}); err != nil {
			return err
		}
	}
	for _, u := range []budgetSteering{
		{contract.UpdateRaiseBudget, s.raiseRefusal, s.raise},
		{contract.UpdateRaiseExperimentBudget, s.raiseExperimentRefusal, s.raiseExperiment},
	} {
		if err := workflow.SetUpdateHandlerWithOptions(s.ctx, u.name, func(_ workflow.Context, b settings.Budget) (contract.Progress, error) {
			u.apply(b)
			return s.progress(), nil
		}, workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, b settings.Budget) error { return refused(u.refusal(b)) }}); err != nil {
			return err
		}
	}
	return nil
}

// refused is a validator's refusal: an error the caller can tell from every
// other (type contract.UpdateRefused), or nil when why is empty.
func refused(why string) error {
	if why == "" {
		return nil
	}
	return temporal.NewNonRetryableApplicationError(why, contract.UpdateRefused, nil)
}

func (s *stream) pause()  { s.st.Paused = true }
func (s *stream) resume() { s.st.Paused, s.st.PausedBy = false, "" }
func (s *stream) stop()   { s.st.Stopping = true }

// over is why no pause, resume or stop applies: the stream has played its
// last episode (its replays may still run) or it is stopping.
func (s *stream) over() string {
	switch {
	case s.ended:
		return "the stream has played its last episode: there is nothing left to pause, resume or stop"
	case s.st.Stopping:
		return "the stream is stopping: it plays no more episodes"
	}
	return ""
}

// pauseRefusal refuses a pause of a stream already paused (by a pause or by
// a budget, which its own raise lifts) or over.
func (s *stream) pauseRefusal() string {
	if why := s.over(); why != "" {
		return why
	}
	if s.st.Paused {
		return "the stream is already " + s.pausedText()
	}
	return ""
}

// stopRefusal refuses a stop of a stream already stopping or over; a paused
// stream stops.
func (s *stream) stopRefusal() string {
	if s.st.Stopping && !s.ended {
		return "the stream is already stopping"
	}
	return s.over()
}

// resumeRefusal refuses a resume of a stream that is not paused, and of one
// a budget paused: resumed, it would pause again at its next check of the
// spend, after playing past the cap, so the budget is what must change.
func (s *stream) resumeRefusal() string {
	if why := s.over(); why != "" {
		return why
	}
	switch s.st.PausedBy {
	case "":
		if !s.st.Paused {
			return "the stream is not paused"
		}
		return ""
	case pausedByExperiment:
		return fmt.Sprintf("the stream is %s: raise that cap (clinevo experiment raise-budget %s, --budget-usd or --budget-tokens; 0: no cap)",
			s.pausedText(), s.spec.ExperimentBudget.Experiment)
	}
	return fmt.Sprintf("the stream is %s: raise its cap (clinevo stream resume %s --raise-budget, --budget-usd or --budget-tokens; 0: no cap)", s.pausedText(), s.spec.RunID)
}

// pausedText says how the stream is paused, with the spend and the cap
// that paused it.
func (s *stream) pausedText() string {
	switch s.st.PausedBy {
	case "":
		return "paused"
	case pausedByExperiment:
		return "paused by its experiment's budget" + spendText(s.st.ExperimentSpend, s.experimentBudgetOf())
	}
	return "paused by its budget" + spendText(s.st.Spend, s.budgetOf())
}

// spendText is " (<spend> of <cap>)" for the cap sp reached, "" when
// either is unknown.
func spendText(sp *contract.Spend, b *settings.Budget) string {
	if sp == nil || b == nil {
		return ""
	}
	if over := b.Reached(sp.USD, sp.Tokens); over != "" {
		return " (" + over + ")"
	}
	return ""
}

// raiseRefusal refuses a budget that is not one, and a cap the spend that
// paused the stream still reaches: the stream would stay paused. A raise
// while the experiment's cap paused the stream is that cap's (raise).
func (s *stream) raiseRefusal(b settings.Budget) string {
	if err := b.Validate(); err != nil {
		return "the new budget: " + err.Error()
	}
	if s.st.PausedBy == pausedByExperiment {
		return s.raiseExperimentRefusal(b)
	}
	if s.st.PausedBy == pausedByBudget {
		return stillReached(b, s.st.Spend, "the run's")
	}
	return ""
}

// raiseExperimentRefusal refuses an experiment cap for a stream of no
// experiment with a budget, one that is not a budget, and one the total
// that paused the stream still reaches.
func (s *stream) raiseExperimentRefusal(b settings.Budget) string {
	if err := b.Validate(); err != nil {
		return "the new budget: " + err.Error()
	}
	if s.spec.ExperimentBudget == nil {
		return "the stream is no condition of an experiment with a budget (budget at the top of its spec): there is no experiment cap to raise"
	}
	if s.st.PausedBy == pausedByExperiment {
		return stillReached(b, s.st.ExperimentSpend, "the experiment's")
	}
	return ""
}

// stillReached is why cap b cannot resume a stream whose spend (of whose,
// at its last check) reaches it, "" when it does not.
func stillReached(b settings.Budget, sp *contract.Spend, whose string) string {
	if sp == nil {
		return ""
	}
	if over := b.Reached(sp.USD, sp.Tokens); over != "" {
		return fmt.Sprintf("%s spend at the last check reaches the new cap (%s): the stream would stay paused; give a cap above the spend, or 0 for none", whose, over)
	}
	return ""
}
