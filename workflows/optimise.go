package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/activities/acts"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/settings"
)

// versionDevPhase is the change ID of streams whose prompt optimiser
// (evolver.method evoprompt or gepa) runs its development phase as a child
// workflow before the first case. Streams of other methods never reach it,
// so their histories are unchanged.
const versionDevPhase = "dev-phase"

// versionGEPAMerge is the change ID of GEPA's merge step: from version 1 a
// GEPA development phase tries, after each generation (up to
// evolver.dev.merges times), to merge two Pareto-front candidates and plays
// the merged one as slot Population of that generation. Phases of other
// methods never read it; GEPA phases without the marker run as before.
const versionGEPAMerge = "gepa-merge"

// OptimizeWorkflow is a prompt optimiser's development phase (EvoPrompt,
// GEPA; EvoClinician §4: "searches for an improved prompt on a held-out
// development subset and then freezes it"): the seed rule book and every
// bred child are played on the development cases as an EvaluationWorkflow
// (kind dev, no memory), each child bred by the Breed activity from the
// candidates so far and their per-case scores. EvoPrompt keeps the best
// Population after every generation; GEPA keeps every child that beats its
// parent, draws parents from the Pareto front, and after each generation
// tries its merge step (evolver.GEPAMerge, behind versionGEPAMerge). It returns the best candidate by
// mean score, which the stream freezes. Every step is recorded: a crashed
// phase resumes where it stopped, with the children and scores it stored.
func OptimizeWorkflow(ctx workflow.Context, spec contract.OptimizeSpec) (contract.OptimizeResult, error) {
	w, err := newWaiter(ctx, spec.Settings.Durability)
	if err != nil {
		return contract.OptimizeResult{}, err
	}
	log := workflow.GetLogger(ctx)
	dev := spec.Settings.Evolver.Dev
	actx := activityOptions(ctx, max(60, spec.ActivityTimeoutSeconds))
	var plan acts.StreamPlan
	if err := call2(actx, w.activity, acts.PlanCases, spec.Corpus, dev.Cases, &plan); err != nil {
		return contract.OptimizeResult{}, err
	}
	log.Info("development phase started", "run", spec.RunID, "method", spec.Settings.Evolver.Method, "corpus", spec.Corpus,
		"cases", len(plan.CaseIDs), "generations", dev.Generations, "population", dev.Population)
	play := func(gen, slot int, rules []clinic.Rule) (evolver.Candidate, error) {
		run := contract.DevRunID(spec.RunID, gen, slot)
		es := contract.EvalSpec{RunID: run, Kind: contract.KindDev, Label: fmt.Sprintf("dev g%d c%d", gen, slot), Corpus: spec.Corpus,
			CaseIDs: plan.CaseIDs, Conditions: plan.Conditions, Stage: 1, Pass: spec.Pass, Rules: ruleTexts(rules),
			Concurrency: spec.EvalConcurrency, ActivityTimeoutSeconds: spec.ActivityTimeoutSeconds, Settings: spec.Settings}
		cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: contract.EvaluationWorkflowID(run),
			StaticSummary: fmt.Sprintf("development candidate g%d c%d of %s", gen, slot, spec.RunID)})
		if err := workflow.ExecuteChildWorkflow(cctx, EvaluationWorkflow, es).Get(ctx, nil); err != nil {
			return evolver.Candidate{}, err
		}
		c := evolver.Candidate{Rules: rules, Run: run}
		if err := call(actx, w.activity, acts.DevScores, run, &c.Scores); err != nil {
			return evolver.Candidate{}, err
		}
		log.Info("development candidate scored", "run", spec.RunID, "generation", gen, "slot", slot, "rules", len(rules), "mean_s", c.Mean())
		return c, nil
	}
	gepa := spec.Settings.Evolver.Method == settings.MethodGEPA
	merges := 0
	if gepa && dev.Merges > 0 && workflow.GetVersion(ctx, versionGEPAMerge, workflow.DefaultVersion, 1) >= 1 {
		merges = dev.Merges
	}
	seed, err := play(0, 0, spec.Seed)
	if err != nil {
		return contract.OptimizeResult{}, err
	}
	pool := []evolver.Candidate{seed}
	played := 1
	var tried [][3]int
	for gen := 1; gen <= dev.Generations; gen++ {
		for slot := range dev.Population {
			var rules []clinic.Rule
			in := acts.BreedInput{Run: spec.RunID, Corpus: spec.Corpus, Gen: gen, Slot: slot, Pool: pool, Settings: spec.Settings}
			if err := call(actx, w.activity, acts.Breed, in, &rules); err != nil {
				return contract.OptimizeResult{}, err
			}
			c, err := play(gen, slot, rules)
			if err != nil {
				return contract.OptimizeResult{}, err
			}
			played++
			if gepa {
				p := evolver.GEPAParent(spec.RunID, pool, gen, slot)
				if parent := pool[p]; !evolver.GEPAAccept(parent, c) {
					log.Info("development candidate discarded", "run", spec.RunID, "generation", gen, "slot", slot, "mean_s", c.Mean(),
						"parent", parent.Run, "parent_mean_s", parent.Mean())
					continue
				}
				c.Parents = []int{p}
			}
			pool = append(pool, c)
		}
		if len(tried) < merges {
			// GEPA's merge: the merged book is computed here from the pool
			// (a pure function of what the history holds) and played as one
			// more candidate of the generation.
			if m, ok := evolver.GEPAMerge(pool, tried, spec.Settings.Evolver.RuleBudget); ok {
				tried = append(tried, [3]int{m.I, m.J, m.Ancestor})
				c, err := play(gen, dev.Population, m.Rules)
				if err != nil {
					return contract.OptimizeResult{}, err
				}
				played++
				c.Parents = []int{m.I, m.J}
				keep := evolver.GEPAMergeAccept(pool[m.I], pool[m.J], c)
				log.Info("development candidates merged", "run", spec.RunID, "generation", gen, "merged", c.Run, "of", pool[m.I].Run, "and", pool[m.J].Run,
					"ancestor", pool[m.Ancestor].Run, "mean_s", c.Mean(), "kept", keep)
				if keep {
					pool = append(pool, c)
				}
			}
		}
		if spec.Settings.Evolver.Method == settings.MethodEvoPrompt {
			var next []evolver.Candidate
			for _, i := range evolver.EvoPromptSurvivors(pool, dev.Population) {
				next = append(next, pool[i])
			}
			pool = next
		}
	}
	best := pool[evolver.Best(pool)]
	log.Info("development phase finished", "run", spec.RunID, "candidates", played, "best", best.Run, "mean_s", best.Mean(), "rules", len(best.Rules))
	return contract.OptimizeResult{RuleBook: best.Rules, Candidates: played, Best: best.Run, Mean: best.Mean()}, nil
}

// optimise runs the stream's development phase when its method has one
// (behind versionDevPhase), and starts the stream from the frozen result.
func (s *stream) optimise() error {
	if s.st.Cursor > 0 || !s.spec.Settings.Evolver.Optimises() {
		return nil
	}
	if workflow.GetVersion(s.ctx, versionDevPhase, workflow.DefaultVersion, 1) < 1 {
		return nil
	}
	ref := s.spec.Settings.Evolver.Dev.Corpus
	if ref == "" {
		ref = s.spec.Corpus
	}
	spec := contract.OptimizeSpec{RunID: s.spec.RunID, Corpus: ref, Pass: s.spec.Pass, Seed: s.st.RuleBook, EvalConcurrency: s.spec.EvalConcurrency,
		ActivityTimeoutSeconds: s.spec.ActivityTimeoutSeconds, Settings: s.spec.Settings}
	cctx := workflow.WithChildOptions(s.ctx, workflow.ChildWorkflowOptions{WorkflowID: contract.OptimizeWorkflowID(s.spec.RunID),
		StaticSummary: fmt.Sprintf("development phase (%s) of %s", s.spec.Settings.Evolver.Method, s.spec.RunID)})
	var res contract.OptimizeResult
	if err := workflow.ExecuteChildWorkflow(cctx, OptimizeWorkflow, spec).Get(s.ctx, &res); err != nil {
		return err
	}
	s.st.RuleBook = res.RuleBook
	return nil
}
