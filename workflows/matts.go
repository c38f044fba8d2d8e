package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/activities/acts"
	"github.com/clinevo/clinevo/contract"
)

// versionMaTTS is the change ID of MaTTS's parallel attempts
// (settings.MaTTS): from version 1 a stream whose evolver.matts.k is above
// 1 plays each case as k child episodes at once. The marker is written
// only by such streams, so every history without MaTTS replays as before.
const versionMaTTS = "matts-attempts"

// matts reports whether this stream plays its cases as several attempts.
func (s *stream) matts() bool {
	return s.spec.Settings.Evolver.MaTTS.Attempts() > 1 &&
		workflow.GetVersion(s.ctx, versionMaTTS, workflow.DefaultVersion, 1) >= 1
}

// attempts plays a case K times at once (ReasoningBank's parallel scaling,
// arXiv 2509.25140 §3.3): the first attempt is the episode itself, with
// its ID; attempt a (2..K) is the same input under
// contract.AttemptWorkflowID, graded by itself. Every attempt carries the
// same episode number, so each reads memory as of the same episode. The
// stream counts the first attempt's score (Pass@1; the paper's Pass@1 is
// one trajectory picked at random, §4.4, which for attempts played alike
// is any one, and the first keeps it deterministic: clinevo's choice); the
// record keeps all K (results.Attempts). The returned ref names the others
// for the learning step, which contrasts them.
func (s *stream) attempts(in acts.EpisodeInput) (contract.ScoreSummary, acts.EpisodeRef, error) {
	k := s.spec.Settings.Evolver.MaTTS.Attempts()
	futures := make([]workflow.ChildWorkflowFuture, k)
	ref := in.Ref()
	for a := 1; a <= k; a++ {
		at := in
		if a > 1 {
			at.EpisodeID, at.Grade = contract.AttemptWorkflowID(in.EpisodeID, a), true
			ref.Attempts = append(ref.Attempts, at.EpisodeID)
		}
		if err := checkEpisodeID(s.ctx, at); err != nil {
			return contract.ScoreSummary{}, acts.EpisodeRef{}, err
		}
		futures[a-1] = workflow.ExecuteChildWorkflow(episodeOptions(s.ctx, at), EpisodeWorkflow, at)
	}
	var first contract.ScoreSummary
	for a, f := range futures {
		var score contract.ScoreSummary
		if err := f.Get(s.ctx, &score); err != nil {
			return contract.ScoreSummary{}, acts.EpisodeRef{}, err
		}
		if a == 0 {
			first = score
		}
	}
	return first, ref, nil
}
