package contract

import (
	"fmt"

	"github.com/clinevo/clinevo/settings"
)

// EpochsRange bounds how many times a held-out case is played (epochs):
// each epoch costs a full play of the held-out cases, so the bound is
// clinevo's choice (inspect_ai's epochs have no bound; pass@k studies
// rarely draw more than a few dozen samples per problem, Chen et al. 2021
// arXiv 2107.03374 §2.1 draw up to 200 with k at most 100).
var EpochsRange = settings.Range{Min: 1, Max: 100, Zero: "one play of each case"}

// EpochsOf is how many times held-out condition c plays each case: its own
// epochs, else the experiment's, else 1. A stream condition plays once.
func (e ExperimentSpec) EpochsOf(c ConditionSpec) int {
	switch {
	case c.Kind != KindHeldOut:
		return 1
	case c.Epochs > 0:
		return c.Epochs
	case e.Epochs > 0:
		return e.Epochs
	}
	return 1
}

// EpochEpisodeID is the stable ID of epoch k (1-based) of an evaluation's
// episode: EpisodeWorkflowID for the first epoch, so a run of one epoch
// keeps the IDs it always had, and <run>/p<pass>/s<stage>/e<index>.k<epoch>-<case>
// for a later one, which sorts right after the first among its case's IDs.
func EpochEpisodeID(run string, pass, stage, index, epoch int, caseID string) string {
	if epoch <= 1 {
		return EpisodeWorkflowID(run, pass, stage, index, caseID)
	}
	return fmt.Sprintf("%s/p%d/s%02d/e%04d.k%03d-%s", run, pass, stage, index, epoch, caseID)
}

// validateEpochs checks the experiment's epochs and those of its conditions
// (only a held-out condition plays its cases more than once).
func (e ExperimentSpec) validateEpochs() error {
	if err := numbers(numberCheck{"epochs", e.Epochs, EpochsRange}); err != nil {
		return err
	}
	for i, c := range e.Conditions {
		if err := numbers(numberCheck{"epochs", c.Epochs, EpochsRange}); err != nil {
			return fmt.Errorf("conditions[%d] (%s): %w", i, c.Name, err)
		}
		if c.Epochs > 1 && c.Kind != KindHeldOut {
			return fmt.Errorf("conditions[%d] (%s): epochs %d: only a heldout condition plays its cases several times (a stream learns from each case once)", i, c.Name, c.Epochs)
		}
	}
	return nil
}

// Plays is how many episodes the evaluation plays: every case, Epochs times.
func (e EvalSpec) Plays() int { return len(e.CaseIDs) * max(e.Epochs, 1) }

// Play is play i (0-based, below Plays) of the evaluation: the index of its
// case in CaseIDs and its epoch (1-based). The plays go epoch by epoch, so
// the first epoch is the evaluation a single epoch would play.
func (e EvalSpec) Play(i int) (caseIndex, epoch int) {
	n := len(e.CaseIDs)
	return i % n, i/n + 1
}
