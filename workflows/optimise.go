package workflows

import (
	"fmt"

	"go.temporal.io/sdk/log"
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

// versionEvoPromptPopulation is the change ID of EvoPrompt's initial
// population: from version 1 an EvoPrompt development phase plays, beside
// the seed, Population-1 initial books bred at generation 0 (slots 1 on),
// and evolver.dev.algorithm de runs differential evolution. Phases of other
// methods never read it; EvoPrompt phases without the marker start from the
// seed alone and run the genetic algorithm, as before.
const versionEvoPromptPopulation = "evoprompt-population"

// OptimizeWorkflow is a prompt optimiser's development phase (EvoPrompt,
// GEPA; EvoClinician §4: "searches for an improved prompt on a held-out
// development subset and then freezes it"): the seed rule book and every
// bred book are played on the development cases as an EvaluationWorkflow
// (kind dev, no memory), each bred by the Breed activity from the
// candidates so far and their per-case scores. EvoPrompt starts from
// Population books (behind versionEvoPromptPopulation) and either keeps the
// best Population after every generation (GA) or lets each member's child
// replace it when it scores higher (DE); GEPA keeps every child that beats
// its parent, draws parents from the Pareto front, and after each
// generation tries its merge step (evolver.GEPAMerge, behind
// versionGEPAMerge). It returns the best candidate by mean score, which the
// stream freezes. Every step is recorded: a crashed phase resumes where it
// stopped, with the children and scores it stored.
func OptimizeWorkflow(ctx workflow.Context, spec contract.OptimizeSpec) (contract.OptimizeResult, error) {
	p, err := newDevPhase(ctx, spec)
	if err != nil {
		return contract.OptimizeResult{}, err
	}
	if err := p.start(); err != nil {
		return contract.OptimizeResult{}, err
	}
	for gen := 1; gen <= p.dev.Generations; gen++ {
		step := p.generation
		if p.de {
			step = p.deGeneration
		}
		if err := step(gen); err != nil {
			return contract.OptimizeResult{}, err
		}
	}
	best := p.pool[evolver.Best(p.pool)]
	p.log.Info("development phase finished", "run", spec.RunID, "candidates", p.played, "best", best.Run, "mean_s", best.Mean(), "rules", len(best.Rules))
	return contract.OptimizeResult{RuleBook: best.Rules, Candidates: p.played, Best: best.Run, Mean: best.Mean()}, nil
}

// devPhase is a development phase as it runs: its plan of development
// cases, the pool of candidates kept so far, and what it has played.
type devPhase struct {
	ctx, actx workflow.Context
	w         *waiter
	log       log.Logger
	spec      contract.OptimizeSpec
	dev       settings.Dev
	plan      acts.StreamPlan
	pool      []evolver.Candidate
	played    int
	gepa, de  bool
	merges    int
	tried     [][3]int
}

// newDevPhase plans the development cases and reads the phase's versions.
func newDevPhase(ctx workflow.Context, spec contract.OptimizeSpec) (*devPhase, error) {
	w, err := newWaiter(ctx, spec.Settings.Durability)
	if err != nil {
		return nil, err
	}
	p := &devPhase{ctx: ctx, actx: activityOptions(ctx, max(60, spec.ActivityTimeoutSeconds)), w: w, log: workflow.GetLogger(ctx), spec: spec,
		dev: spec.Settings.Evolver.Dev, gepa: spec.Settings.Evolver.Method == settings.MethodGEPA}
	if err := call2(p.actx, w.activity, acts.PlanCases, spec.Corpus, p.dev.Cases, &p.plan); err != nil {
		return nil, err
	}
	p.log.Info("development phase started", "run", spec.RunID, "method", spec.Settings.Evolver.Method, "corpus", spec.Corpus,
		"cases", len(p.plan.CaseIDs), "generations", p.dev.Generations, "population", p.dev.Population)
	if p.gepa && p.dev.Merges > 0 && workflow.GetVersion(ctx, versionGEPAMerge, workflow.DefaultVersion, 1) >= 1 {
		p.merges = p.dev.Merges
	}
	return p, nil
}

// start plays the seed and, for EvoPrompt from versionEvoPromptPopulation
// on, the rest of the initial population.
func (p *devPhase) start() error {
	seed, err := p.play(0, 0, p.spec.Seed)
	if err != nil {
		return err
	}
	p.pool = []evolver.Candidate{seed}
	if p.spec.Settings.Evolver.Method != settings.MethodEvoPrompt ||
		workflow.GetVersion(p.ctx, versionEvoPromptPopulation, workflow.DefaultVersion, 1) < 1 {
		return nil
	}
	p.de = p.dev.Algo() == settings.EvoPromptDE
	for slot := 1; slot < p.dev.Population; slot++ {
		c, err := p.breedAndPlay(0, slot, p.pool[:1])
		if err != nil {
			return err
		}
		p.pool = append(p.pool, c)
	}
	return nil
}

// play plays a rule book on the development cases as candidate slot of
// generation gen and returns it with its scores.
func (p *devPhase) play(gen, slot int, rules []clinic.Rule) (evolver.Candidate, error) {
	run := contract.DevRunID(p.spec.RunID, gen, slot)
	es := contract.EvalSpec{RunID: run, Kind: contract.KindDev, Label: fmt.Sprintf("dev g%d c%d", gen, slot), Corpus: p.spec.Corpus,
		CaseIDs: p.plan.CaseIDs, Conditions: p.plan.Conditions, Stage: 1, Pass: p.spec.Pass, Rules: ruleTexts(rules),
		Concurrency: p.spec.EvalConcurrency, ActivityTimeoutSeconds: p.spec.ActivityTimeoutSeconds, Settings: p.spec.Settings}
	cctx := workflow.WithChildOptions(p.ctx, workflow.ChildWorkflowOptions{WorkflowID: contract.EvaluationWorkflowID(run),
		StaticSummary: fmt.Sprintf("development candidate g%d c%d of %s", gen, slot, p.spec.RunID)})
	if err := workflow.ExecuteChildWorkflow(cctx, EvaluationWorkflow, es).Get(p.ctx, nil); err != nil {
		return evolver.Candidate{}, err
	}
	c := evolver.Candidate{Rules: rules, Run: run}
	if err := call(p.actx, p.w.activity, acts.DevScores, run, &c.Scores); err != nil {
		return evolver.Candidate{}, err
	}
	p.played++
	p.log.Info("development candidate scored", "run", p.spec.RunID, "generation", gen, "slot", slot, "rules", len(rules), "mean_s", c.Mean())
	return c, nil
}

// breedAndPlay breeds candidate slot of generation gen from pool (the Breed
// activity) and plays it.
func (p *devPhase) breedAndPlay(gen, slot int, pool []evolver.Candidate) (evolver.Candidate, error) {
	var rules []clinic.Rule
	in := acts.BreedInput{Run: p.spec.RunID, Corpus: p.spec.Corpus, Gen: gen, Slot: slot, Pool: pool, Settings: p.spec.Settings}
	if err := call(p.actx, p.w.activity, acts.Breed, in, &rules); err != nil {
		return evolver.Candidate{}, err
	}
	return p.play(gen, slot, rules)
}

// generation is one generation of EvoPrompt's GA or of GEPA: Population
// children bred from the pool, GEPA's merge, EvoPrompt's survivors.
func (p *devPhase) generation(gen int) error {
	for slot := range p.dev.Population {
		c, err := p.breedAndPlay(gen, slot, p.pool)
		if err != nil {
			return err
		}
		if p.gepa {
			parent := evolver.GEPAParent(p.spec.RunID, p.pool, gen, slot)
			if !evolver.GEPAAccept(p.pool[parent], c) {
				p.log.Info("development candidate discarded", "run", p.spec.RunID, "generation", gen, "slot", slot, "mean_s", c.Mean(),
					"parent", p.pool[parent].Run, "parent_mean_s", p.pool[parent].Mean())
				continue
			}
			c.Parents = []int{parent}
		}
		p.pool = append(p.pool, c)
	}
	if err := p.merge(gen); err != nil {
		return err
	}
	if p.spec.Settings.Evolver.Method == settings.MethodEvoPrompt {
		var next []evolver.Candidate
		for _, i := range evolver.EvoPromptSurvivors(p.pool, p.dev.Population) {
			next = append(next, p.pool[i])
		}
		p.pool = next
	}
	return nil
}

// merge is GEPA's merge step after generation gen, while merges remain: the
// merged book is computed here from the pool (a pure function of what the
// history holds) and played as one more candidate of the generation.
func (p *devPhase) merge(gen int) error {
	if len(p.tried) >= p.merges {
		return nil
	}
	m, ok := evolver.GEPAMerge(p.pool, p.tried, p.spec.Settings.Evolver.RuleBudget)
	if !ok {
		return nil
	}
	p.tried = append(p.tried, [3]int{m.I, m.J, m.Ancestor})
	c, err := p.play(gen, p.dev.Population, m.Rules)
	if err != nil {
		return err
	}
	c.Parents = []int{m.I, m.J}
	keep := evolver.GEPAMergeAccept(p.pool[m.I], p.pool[m.J], c)
	p.log.Info("development candidates merged", "run", p.spec.RunID, "generation", gen, "merged", c.Run, "of", p.pool[m.I].Run, "and", p.pool[m.J].Run,
		"ancestor", p.pool[m.Ancestor].Run, "mean_s", c.Mean(), "kept", keep)
	if keep {
		p.pool = append(p.pool, c)
	}
	return nil
}

// deGeneration is one generation of EvoPrompt's differential evolution:
// every member's child is bred from the population as the generation
// began, and replaces the member when it scores higher.
func (p *devPhase) deGeneration(gen int) error {
	base := append([]evolver.Candidate(nil), p.pool...)
	for slot := range base {
		c, err := p.breedAndPlay(gen, slot, base)
		if err != nil {
			return err
		}
		if evolver.EvoPromptReplace(base[slot], c) {
			p.log.Info("development member replaced", "run", p.spec.RunID, "generation", gen, "slot", slot, "by", c.Run,
				"mean_s", c.Mean(), "was", base[slot].Mean())
			p.pool[slot] = c
		}
	}
	return nil
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
