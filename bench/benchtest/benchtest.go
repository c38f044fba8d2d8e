// Package benchtest is the conformance suite every registered benchmark
// passes (bench.Benchmark): a benchmark's own test calls Run with sample
// cases, a move for each of its actions, and the bad settings and cases it
// must refuse.
package benchtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/settings"
)

// Config is what the suite needs of a benchmark beyond its interface.
type Config struct {
	// Settings are the runs to play (at least one): the benchmark's default
	// run and its modes.
	Settings []settings.Settings
	// Cases are sample cases the benchmark plays.
	Cases []clinic.Case
	// Moves are valid doctor outputs for the view, at least one for every
	// action the view allows: the suite's random doctor picks among them, and
	// the action check tries each one the view allows (a move for an action
	// the view masks is not tried there).
	Moves func(v clinic.DoctorView) []clinic.DoctorOutput
	// BadSettings must be refused, each error naming Want; the suite adds an
	// unknown episode key of its own.
	BadSettings []Bad[settings.Overrides]
	// BadCases must be refused by ValidateCase, each error naming Want.
	BadCases []Bad[func(*clinic.Case)]
	// Hidden are the benchmark's own types that hold what the doctor must
	// not see (beside the case's views, which the suite always forbids).
	Hidden []reflect.Type
	// View is the type of the benchmark's own part of the doctor's view
	// (DoctorView.Ext), nil where it has none: every view's Ext is of this
	// type, and the suite walks it as it walks DoctorView.
	View reflect.Type
	// Episodes bounds the episodes played per run and doctor (0: every case).
	Episodes int
}

// Settings are the default settings of a run of b alone: the shared
// defaults with b's roles and episode keys at theirs, profile b.
func Settings(b bench.Benchmark) settings.Settings {
	set, err := bench.NewSet(b)
	if err != nil {
		panic(fmt.Sprintf("benchtest: %v", err)) // a test helper: the benchmark's name is malformed
	}
	s := set.DefaultSettings()
	s.Benchmark = b.Name()
	return s
}

// Bad is an input the benchmark must refuse, and what the error must name.
type Bad[T any] struct {
	Name  string
	Input T
	Want  string
}

// Run checks b against the conformance rules:
//   - its metrics are declared well (unique names, bounds, a headline, a
//     definition);
//   - every action it declares is handled (where a view allows it: the
//     suite walks each case's episode through its states), and an action it
//     does not declare is recorded as invalid, never an error;
//   - rebuilding an episode from its events (any prefix of them) calls no
//     role and gives the same state and the same doctor's view;
//   - scores lie within their declared ranges, every metric produced is
//     declared and every declared metric is produced by some sample episode;
//   - the doctor's view type holds no field of a hidden type;
//   - a bad setting or a case of the wrong shape is an error naming it.
func Run(t *testing.T, b bench.Benchmark, cfg Config) {
	t.Helper()
	require.NotEmpty(t, cfg.Settings, "benchtest: Config.Settings")
	require.NotEmpty(t, cfg.Cases, "benchtest: Config.Cases")
	require.NotNil(t, cfg.Moves, "benchtest: Config.Moves")
	set, err := bench.NewSet(b)
	require.NoError(t, err)
	t.Run("metrics are declared", func(t *testing.T) { checkMetrics(t, b.Metrics()) })
	t.Run("view type holds no hidden field", func(t *testing.T) { checkViewType(t, cfg.Hidden, cfg.View) })
	t.Run("cases validate", func(t *testing.T) {
		for i := range cfg.Cases {
			require.NoError(t, b.ValidateCase(&cfg.Cases[i]), "case %s", cfg.Cases[i].ID)
		}
	})
	t.Run("bad cases are refused", func(t *testing.T) {
		for _, bc := range cfg.BadCases {
			c := cloneCase(t, cfg.Cases[0])
			bc.Input(&c)
			err := b.ValidateCase(&c)
			require.Error(t, err, bc.Name)
			require.Contains(t, err.Error(), bc.Want, bc.Name)
		}
	})
	t.Run("bad settings are refused", func(t *testing.T) {
		bad := append([]Bad[settings.Overrides]{{Name: "unknown episode key",
			Input: settings.Overrides{"episode": map[string]any{"no_such_budget": 3}}, Want: "episode.no_such_budget"}}, cfg.BadSettings...)
		for _, bs := range bad {
			s, err := settings.Apply(cfg.Settings[0], "settings", bs.Input)
			if err == nil {
				err = set.ValidateSettings(s)
			}
			require.Error(t, err, bs.Name)
			require.Contains(t, err.Error(), bs.Want, bs.Name)
		}
	})
	produced := map[string]bool{}
	for si, s := range cfg.Settings {
		require.NoError(t, set.ValidateSettings(s), "settings %d", si)
		require.NotEmpty(t, b.Actions(s), "settings %d: no actions", si)
		t.Run(fmt.Sprintf("run %d", si), func(t *testing.T) {
			t.Run("every declared action is handled", func(t *testing.T) { checkActions(t, b, s, cfg) })
			cases := cfg.Cases
			if cfg.Episodes > 0 && len(cases) > cfg.Episodes {
				cases = cases[:cfg.Episodes]
			}
			doctors := map[string]func(int) actor.Doctor{
				"built-in doctor": func(int) actor.Doctor { return actor.BuiltinFor(b) },
				"random doctor": func(i int) actor.Doctor {
					return &randomDoctor{moves: cfg.Moves, rng: rand.New(rand.NewPCG(uint64(si), uint64(i)))}
				},
			}
			for _, name := range []string{"built-in doctor", "random doctor"} {
				t.Run(name, func(t *testing.T) {
					for i, c := range cases {
						for k := range play(t, b, s, c, doctors[name](i), cfg.View) {
							produced[k] = true
						}
					}
				})
			}
		})
	}
	t.Run("declared metrics are produced", func(t *testing.T) {
		var declared, missing []string
		for _, m := range b.Metrics() {
			if !m.Shared {
				declared = append(declared, m.Name)
				if !produced[m.Name] {
					missing = append(missing, m.Name)
				}
			}
		}
		require.Empty(t, missing, "declared metrics no sample episode produced (declared: %v)", declared)
	})
}

// sharedScores are the shared numeric scores a metric may declare, by JSON
// name; a benchmark that does not declare one leaves it at zero.
var sharedScores = []string{"s", "strict", "pass", "grade", "diagnosis", "u", "t", "e", "r", "cost_usd"}

func checkMetrics(t *testing.T, ms []bench.Metric) {
	seen := map[string]bool{}
	headline := false
	for _, m := range ms {
		require.NotEmpty(t, m.Name, "a metric without a name")
		require.False(t, seen[m.Name], "metric %s declared twice", m.Name)
		seen[m.Name] = true
		require.NotEmpty(t, m.Title, "metric %s: no title", m.Name)
		require.NotEmpty(t, m.Doc, "metric %s: no definition", m.Name)
		require.LessOrEqual(t, m.Min, m.Max, "metric %s: bounds", m.Name)
		if m.Shared {
			require.Contains(t, sharedScores, m.Name, "metric %s is not a shared score", m.Name)
		}
		headline = headline || m.Headline
	}
	require.True(t, seen["s"], "every benchmark declares S, the headline the learner and the running means read")
	require.True(t, headline, "no headline metric")
}

// checkActions steps every declared action of each case's episode: the
// moves each view allows are tried, each on a rebuild of the episode so far,
// and the walk goes on along the first move into a state that allows other
// actions (a workflow that masks an action at first, as treat before
// diagnose), until the case has tried every declared action or no move leads
// anywhere new. None is an error or refused; an undeclared action is
// recorded, never an error.
func checkActions(t require.TestingT, b bench.Benchmark, s settings.Settings, cfg Config) {
	ctx := context.Background()
	declared := b.Actions(s)
	handled := map[clinic.ActionKind]bool{}
	for _, c := range cfg.Cases {
		tried := map[clinic.ActionKind]bool{}
		walked := map[string]bool{} // the allowed actions of the views walked
		var events []clinic.Event
		for {
			env, err := b.Start(c, s, episode.BuiltinRoles(), events)
			require.NoError(t, err)
			v := env.View(nil, nil)
			walked[strings.Join(v.Actions, ",")] = true
			for _, a := range v.Actions {
				require.Contains(t, declared, clinic.ActionKind(a), "the view offers %s, which the benchmark does not declare", a)
			}
			var next []clinic.Event
			for _, mv := range cfg.Moves(v) {
				if !slices.Contains(v.Actions, string(mv.Action)) {
					continue
				}
				e, err := b.Start(c, s, episode.BuiltinRoles(), events)
				require.NoError(t, err)
				ev, err := e.Step(ctx, episode.StepInput{Output: mv})
				require.NoError(t, err, "case %s: %s", c.ID, mv.Action)
				require.Equal(t, mv.Action, ev.Action)
				require.NotEqual(t, clinic.StatusInvalid, ev.Status, "case %s: %s is declared but refused: %s", c.ID, mv.Action, ev.Reply)
				require.NotEqual(t, clinic.StatusUnparseable, ev.Status, "case %s: the suite's move for %s is not a valid one: %s", c.ID, mv.Action, ev.Reply)
				handled[mv.Action], tried[mv.Action] = true, true
				if next == nil && !e.Done() && !walked[strings.Join(e.View(nil, nil).Actions, ",")] {
					next = e.Events()
				}
			}
			if next == nil || !slices.ContainsFunc(declared, func(a clinic.ActionKind) bool { return !tried[a] }) {
				break
			}
			events = next
		}
		e, err := b.Start(c, s, episode.BuiltinRoles(), nil)
		require.NoError(t, err)
		ev, err := e.Step(ctx, episode.StepInput{Output: clinic.DoctorOutput{Action: "NO_SUCH_ACTION"}})
		require.NoError(t, err, "an undeclared action is a turn, not an error")
		require.Contains(t, []clinic.Status{clinic.StatusInvalid, clinic.StatusMasked, clinic.StatusUnparseable}, ev.Status)
	}
	for _, a := range declared {
		require.True(t, handled[a], "declared action %s: no view a sample case's walk reaches allows it, or no move was given for it", a)
	}
}

// play runs one episode with doctor, checking every rebuild on the way and
// the scores at the end; it returns the metric names the scores hold.
func play(t *testing.T, b bench.Benchmark, s settings.Settings, c clinic.Case, doctor actor.Doctor, viewType reflect.Type) map[string]bool {
	ctx := context.Background()
	live := episode.BuiltinRoles()
	env, err := b.Start(c, s, live, nil)
	require.NoError(t, err)
	var views []clinic.DoctorView
	rules := []string{"ASK onset: a rule the suite shows"}
	for turn := 0; !env.Done(); turn++ {
		require.Less(t, turn, 1000, "case %s: the episode does not end", c.ID)
		v := env.View(nil, rules)
		if v.Ext != nil {
			require.Equal(t, viewType, reflect.TypeOf(v.Ext), "case %s: the view's Ext is not the declared view type", c.ID)
		} else {
			require.Nil(t, viewType, "case %s: the benchmark declares a view type but the view has no Ext", c.ID)
		}
		views = append(views, v)
		dec, err := doctor.Decide(ctx, v)
		require.NoError(t, err)
		_, err = env.Step(ctx, episode.StepInput{Output: dec.Output, LLMError: dec.LLMError})
		require.NoError(t, err, "case %s turn %d", c.ID, turn)
	}
	require.NotEmpty(t, env.Events(), "case %s: the episode ended without a turn", c.ID)
	events := env.Events()
	// Rebuilds from every prefix: no role is called, and the view the doctor
	// saw at that turn comes back.
	for n := 0; n <= len(events); n++ {
		quiet, qcalls := counting(failing{}.roles())
		re, err := b.Start(c, s, quiet, events[:n])
		require.NoError(t, err)
		require.Zero(t, qcalls.Load(), "case %s: rebuilding from %d events called a role", c.ID, n)
		if n < len(events) {
			require.Equal(t, views[n], re.View(nil, rules), "case %s: the view after %d events differs when rebuilt", c.ID, n)
			require.False(t, re.Done())
			continue
		}
		require.True(t, re.Done(), "case %s: the rebuilt episode has not ended", c.ID)
		f1, e1 := env.Final()
		f2, e2 := re.Final()
		require.Equal(t, f1, f2)
		require.Equal(t, e1, e2)
		require.Equal(t, events, re.Events())
		require.Equal(t, env.Revealed(), re.Revealed())
	}
	sc, err := b.Score(ctx, bench.ScoreInput{Case: &c, Settings: s, Env: env})
	require.NoError(t, err, "case %s", c.ID)
	return checkScores(t, b.Metrics(), sc, c.ID)
}

// checkScores checks the scores against the declared metrics.
func checkScores(t require.TestingT, ms []bench.Metric, sc clinic.Scores, caseID string) map[string]bool {
	byName := map[string]bench.Metric{}
	for _, m := range ms {
		byName[m.Name] = m
	}
	raw, err := json.Marshal(sc)
	require.NoError(t, err)
	var fields map[string]any
	require.NoError(t, json.Unmarshal(raw, &fields))
	for _, name := range sharedScores {
		v := number(fields[name])
		m, ok := byName[name]
		if !ok || !m.Shared {
			require.Zero(t, v, "case %s: %s = %v, which the benchmark does not declare", caseID, name, v)
			continue
		}
		inRange(t, m, v, caseID)
	}
	out := map[string]bool{}
	keys := make([]string, 0, len(sc.Metrics))
	for k := range sc.Metrics {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		m, ok := byName[k]
		require.True(t, ok && !m.Shared, "case %s: metric %q is produced but not declared", caseID, k)
		inRange(t, m, sc.Metrics[k], caseID)
		out[k] = true
	}
	return out
}

func inRange(t require.TestingT, m bench.Metric, v float64, caseID string) {
	require.False(t, math.IsNaN(v), "case %s: %s is NaN", caseID, m.Name)
	require.True(t, v >= m.Min-1e-9 && v <= m.Max+1e-9, "case %s: %s = %v outside its declared [%v, %v]", caseID, m.Name, v, m.Min, m.Max)
}

func number(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case bool:
		if x {
			return 1
		}
	}
	return 0
}

// hiddenTypes are the shared types that hold what the doctor must not see.
var hiddenTypes = []reflect.Type{
	reflect.TypeFor[clinic.Case](), reflect.TypeFor[clinic.PatientView](), reflect.TypeFor[clinic.ExamView](),
	reflect.TypeFor[clinic.ManagerView](), reflect.TypeFor[clinic.Fact](), reflect.TypeFor[clinic.Finding](),
	reflect.TypeFor[clinic.TestValue](), reflect.TypeFor[clinic.Diagnosis](), reflect.TypeFor[clinic.Referral](),
	reflect.TypeFor[clinic.Provenance](), reflect.TypeFor[clinic.CaseMeta](), reflect.TypeFor[clinic.Persona](),
	reflect.TypeFor[clinic.Card](),
}

// checkViewType walks the doctor's view type and the benchmark's part of it:
// no field of a hidden type, no field that could hold anything (an
// interface, a function, a channel), at any depth. DoctorView.Ext is the one
// interface: it holds the benchmark's declared view type, which is walked in
// its place.
func checkViewType(t require.TestingT, hidden []reflect.Type, view reflect.Type) {
	forbidden := append(slices.Clone(hiddenTypes), hidden...)
	var walk func(tp reflect.Type, path string, seen map[reflect.Type]bool)
	walk = func(tp reflect.Type, path string, seen map[reflect.Type]bool) {
		for _, h := range forbidden {
			require.NotEqual(t, h, tp, "%s is a %s, which holds what the doctor must not see", path, h)
		}
		if seen[tp] {
			return
		}
		seen[tp] = true
		switch tp.Kind() {
		case reflect.Struct:
			for i := range tp.NumField() {
				f := tp.Field(i)
				walk(f.Type, path+"."+f.Name, seen)
			}
		case reflect.Slice, reflect.Array, reflect.Pointer:
			walk(tp.Elem(), path+"[]", seen)
		case reflect.Map:
			walk(tp.Key(), path+"{key}", seen)
			walk(tp.Elem(), path+"{}", seen)
		case reflect.Interface:
			if tp == reflect.TypeFor[clinic.ViewExt]() {
				if view != nil {
					require.True(t, view.Implements(tp), "%s does not implement clinic.ViewExt", view)
					walk(view, path+"("+view.String()+")", seen)
				}
				return
			}
			require.Fail(t, "view field could hold anything", "%s is a %s", path, tp)
		case reflect.Func, reflect.Chan, reflect.UnsafePointer:
			require.Fail(t, "view field could hold anything", "%s is a %s", path, tp)
		}
	}
	walk(reflect.TypeFor[clinic.DoctorView](), "DoctorView", map[reflect.Type]bool{})
}

// randomDoctor picks one of the suite's moves for the view at random.
type randomDoctor struct {
	moves func(clinic.DoctorView) []clinic.DoctorOutput
	rng   *rand.Rand
}

func (d *randomDoctor) Decide(_ context.Context, v clinic.DoctorView) (actor.Decision, error) {
	var ok []clinic.DoctorOutput
	for _, mv := range d.moves(v) {
		if slices.Contains(v.Actions, string(mv.Action)) {
			ok = append(ok, mv)
		}
	}
	if len(ok) == 0 {
		return actor.Decision{LLMError: true}, nil // nothing the view allows: an unusable reply
	}
	return actor.Decision{Output: ok[d.rng.IntN(len(ok))]}, nil
}

// counting wraps roles so that every call is counted.
func counting(r episode.Roles) (episode.Roles, *atomic.Int64) {
	n := &atomic.Int64{}
	return episode.Roles{Patient: countPatient{r.Patient, n}, Exam: countExam{r.Exam, n}, Consultant: countConsultant{r.Consultant, n}}, n
}

type countPatient struct {
	episode.Patient
	n *atomic.Int64
}

func (p countPatient) Answer(ctx context.Context, q episode.PatientQuery) (episode.PatientReply, error) {
	p.n.Add(1)
	return p.Patient.Answer(ctx, q)
}

type countExam struct {
	episode.ExamService
	n *atomic.Int64
}

func (e countExam) Resolve(ctx context.Context, request string, cat *catalog.Catalog) (catalog.Item, catalog.Match, error) {
	e.n.Add(1)
	return e.ExamService.Resolve(ctx, request, cat)
}

type countConsultant struct {
	episode.Consultant
	n *atomic.Int64
}

func (c countConsultant) Advise(ctx context.Context, v clinic.DoctorView, q string) (string, error) {
	c.n.Add(1)
	return c.Consultant.Advise(ctx, v, q)
}

// failing are roles that must never be called (a rebuild).
type failing struct{}

func (failing) Answer(context.Context, episode.PatientQuery) (episode.PatientReply, error) {
	return episode.PatientReply{}, fmt.Errorf("benchtest: the patient was called during a rebuild")
}

func (failing) Resolve(context.Context, string, *catalog.Catalog) (catalog.Item, catalog.Match, error) {
	return catalog.Item{}, catalog.MatchNone, fmt.Errorf("benchtest: the exam service was called during a rebuild")
}

func (failing) Advise(context.Context, clinic.DoctorView, string) (string, error) {
	return "", fmt.Errorf("benchtest: the consultant was called during a rebuild")
}

// roles makes failing a set of roles.
func (f failing) roles() episode.Roles { return episode.Roles{Patient: f, Exam: f, Consultant: f} }

func cloneCase(t *testing.T, c clinic.Case) clinic.Case {
	b, err := json.Marshal(c)
	require.NoError(t, err)
	var out clinic.Case
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// Fake is a benchmark that only has a name and declares metrics: what a
// generic package's test needs to see a benchmark's declarations (a report's
// planes and glossaries, whether U is shown) without playing one. Its
// episodes cannot be started or scored.
type Fake struct {
	N string
	M []bench.Metric
}

// Name is N.
func (f Fake) Name() string { return f.N }

// Actions are FINALIZE alone.
func (Fake) Actions(settings.Settings) []clinic.ActionKind {
	return []clinic.ActionKind{clinic.Finalize}
}

// Validate accepts every setting.
func (Fake) Validate(settings.Settings) error { return nil }

// ValidateCase accepts every case.
func (Fake) ValidateCase(*clinic.Case) error { return nil }

// Start is an error: a Fake plays no episode.
func (f Fake) Start(clinic.Case, settings.Settings, episode.Roles, []clinic.Event) (episode.Env, error) {
	return nil, fmt.Errorf("benchtest.Fake %s plays no episode", f.N)
}

// Score is an error: a Fake scores no episode.
func (f Fake) Score(context.Context, bench.ScoreInput) (clinic.Scores, error) {
	return clinic.Scores{}, fmt.Errorf("benchtest.Fake %s scores no episode", f.N)
}

// Metrics are M.
func (f Fake) Metrics() []bench.Metric { return f.M }

// SetOf is the set of bs, for a test.
func SetOf(t testing.TB, bs ...bench.Benchmark) bench.Set {
	t.Helper()
	set, err := bench.NewSet(bs...)
	require.NoError(t, err)
	return set
}

// Library reads cases as a build that plays b alone does: with b's case
// fields, case checks and built-in splits.
func Library(b bench.Benchmark) corpus.Library {
	set, err := bench.NewSet(b)
	if err != nil {
		panic(fmt.Sprintf("benchtest: %v", err)) // a test helper: the benchmark's name is malformed
	}
	return corpus.NewLibrary(set)
}
