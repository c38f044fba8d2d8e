package engine_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// slowRoles are the built-in roles answering the way model endpoints do: every
// call of a model-backed role (doctor, patient, consultant, judge, process
// grader, evolver) takes a fixed latency, at most limit calls of one role are
// in flight at once (a semaphore per role, as settings.Role.Concurrency bounds
// a model client), and the calls are counted by role. The exam service is not
// slowed: a model exam service answers catalog names without calling the model
// (llm.Exam), and the built-in doctor asks only for catalog names.
type slowRoles struct {
	latency time.Duration
	limit   int // calls in flight per role; 0: no limit
	mu      sync.Mutex
	sems    map[string]chan struct{}
	calls   map[string]int
}

func newSlowRoles(latency time.Duration, limit int) *slowRoles {
	return &slowRoles{latency: latency, limit: limit, sems: map[string]chan struct{}{}, calls: map[string]int{}}
}

// call waits for a slot of the role, then for the latency.
func (s *slowRoles) call(ctx context.Context, role string) error {
	s.mu.Lock()
	sem := s.sems[role]
	if sem == nil && s.limit > 0 {
		sem = make(chan struct{}, s.limit)
		s.sems[role] = sem
	}
	s.calls[role]++
	s.mu.Unlock()
	if sem != nil {
		select {
		case sem <- struct{}{}:
			defer func() { <-sem }()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	t := time.NewTimer(s.latency)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// counts returns the calls made so far by role, and their total.
func (s *slowRoles) counts() (map[string]int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out, total := map[string]int{}, 0
	for r, n := range s.calls {
		out[r] = n
		total += n
	}
	return out, total
}

// reset forgets the counted calls.
func (s *slowRoles) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = map[string]int{}
}

// format lists counts by role in name order, e.g. "doctor 62, judge 8".
func format(counts map[string]int) string {
	var parts []string
	for r, n := range counts {
		parts = append(parts, fmt.Sprintf("%s %d", r, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// builtinDoctor is the built-in doctor of a run's benchmark (nil in
// runner.BuiltinRoles: runner.Deps.Doctor picks it).
func builtinDoctor(st settings.Settings) (actor.Doctor, error) {
	set, err := engine.Benchmarks()
	if err != nil {
		return nil, err
	}
	b, err := set.Of(st)
	if err != nil {
		return nil, err
	}
	return actor.BuiltinFor(b), nil
}

// roles are the built-in roles of a run's settings behind the latency; it has
// the signature of engine.Activities.Roles.
func (s *slowRoles) roles(st settings.Settings) (runner.Roles, error) {
	r := runner.BuiltinRoles()
	doc, err := builtinDoctor(st)
	if err != nil {
		return runner.Roles{}, err
	}
	r.Doctor = slowDoctor{doc, s}
	r.Env.Patient = slowPatient{r.Env.Patient, s}
	r.Env.Consultant = slowConsultant{r.Env.Consultant, s}
	r.Judge = slowJudge{grader.RubricJudge{W: st.Scoring}, s}
	r.Grader = slowGrader{grader.BuiltinProcessGrader{}, s}
	r.Evolver = slowEvolver{evolver.Builtin{}, s}
	return r, nil
}

type slowDoctor struct {
	actor.Doctor
	s *slowRoles
}

func (d slowDoctor) Decide(ctx context.Context, v clinic.DoctorView) (actor.Decision, error) {
	if err := d.s.call(ctx, "doctor"); err != nil {
		return actor.Decision{}, err
	}
	return d.Doctor.Decide(ctx, v)
}

type slowPatient struct {
	episode.Patient
	s *slowRoles
}

func (p slowPatient) Answer(ctx context.Context, q episode.PatientQuery) (episode.PatientReply, error) {
	if err := p.s.call(ctx, "patient"); err != nil {
		return episode.PatientReply{}, err
	}
	return p.Patient.Answer(ctx, q)
}

type slowConsultant struct {
	episode.Consultant
	s *slowRoles
}

func (c slowConsultant) Advise(ctx context.Context, v clinic.DoctorView, question string) (string, error) {
	if err := c.s.call(ctx, "consultant"); err != nil {
		return "", err
	}
	return c.Consultant.Advise(ctx, v, question)
}

type slowJudge struct {
	grader.RubricJudge
	s *slowRoles
}

func (j slowJudge) Judge(ctx context.Context, c *clinic.Case, revealed string, final clinic.FinalOutput) (grader.Judgement, error) {
	if err := j.s.call(ctx, "judge"); err != nil {
		return grader.Judgement{}, err
	}
	return j.RubricJudge.Judge(ctx, c, revealed, final)
}

func (j slowJudge) JudgeDiagnosis(ctx context.Context, c *clinic.Case, diagnosis []string) (grader.DiagnosisGrade, error) {
	if err := j.s.call(ctx, "judge"); err != nil {
		return grader.DiagnosisGrade{}, err
	}
	return j.RubricJudge.JudgeDiagnosis(ctx, c, diagnosis)
}

type slowGrader struct {
	grader.ProcessGrader
	s *slowRoles
}

func (g slowGrader) GradeProcess(ctx context.Context, in grader.ProcessInput, key *grader.Key) (grader.ProcessGrade, error) {
	if err := g.s.call(ctx, "grader"); err != nil {
		return grader.ProcessGrade{}, err
	}
	return g.ProcessGrader.GradeProcess(ctx, in, key)
}

type slowEvolver struct {
	evolver.Evolver
	s *slowRoles
}

func (e slowEvolver) Evolve(ctx context.Context, cfg settings.Evolver, in evolver.Input, truth *grader.Key, rules []clinic.Rule) (evolver.Output, error) {
	if err := e.s.call(ctx, "evolver"); err != nil {
		return evolver.Output{}, err
	}
	return e.Evolver.Evolve(ctx, cfg, in, truth, rules)
}
