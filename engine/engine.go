// Package engine wires clinevo's ports into a Temporal worker: it opens the
// results store and the memory bank (under the data directory, or the
// configured PostgreSQL and Qdrant), builds each run's roles from the settings
// the run carries, registers the workflows, and builds the options that dial
// Temporal.
package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
	"github.com/clinevo/clinevo/memory/qdrant"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/postgres"
	"github.com/clinevo/clinevo/results/sqlite"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/workflows"
)

// Options choose the engine's parts.
type Options struct {
	DataDir   string
	Postgres  *postgres.Config // nil: the embedded results store (results.db)
	Qdrant    *qdrant.Config   // nil: the embedded bank (memory.db)
	ReadOnly  bool             // a reader: create no missing data dir, store file or Qdrant collection
	MemoryDim int              // hashing embedder dimension; 0: default
	// Embeddings is the embedder of this worker's bank (roles.embeddings): it
	// is fixed with the bank, unlike the other roles, which each run chooses.
	Embeddings settings.Role
	// PromptText puts prompt text on model-call spans (telemetry.prompt_text).
	PromptText bool
	// RateWindow is the window of the roles' rpm and tpm limits (0: a
	// minute); benchmarks scale it down to play a rate-limited stream in
	// seconds.
	RateWindow time.Duration
}

// secrets are the process's secrets besides the roles' keys, which the
// model clients remove from what endpoints return (llm.Options.Secrets).
func (o Options) secrets() []string {
	var out []string
	if o.Postgres != nil {
		out = append(out, o.Postgres.Password)
	}
	if o.Qdrant != nil {
		out = append(out, o.Qdrant.APIKey)
	}
	return out
}

// Engine holds the build's benchmarks, the open stores and the activities
// built on them.
type Engine struct {
	dir string
	// Benchmarks are the build's benchmarks (Benchmarks).
	Benchmarks bench.Set
	Results    results.Store
	Memory     memory.Store
	Activities *activities.Activities
	roles      *roleSet
	// WorkerStopTimeout is how long a worker's Stop waits for the activities
	// and local activities it is running to return
	// (worker.Options.WorkerStopTimeout). Zero, the SDK's default, does not
	// wait: tests leave it so; `clinevo worker` and `clinevo dev` set
	// StopTimeout; a test that must see every side effect of a terminated run
	// before it looks sets it and restarts the worker.
	WorkerStopTimeout time.Duration
}

// StopTimeout is the WorkerStopTimeout of `clinevo worker` and `clinevo
// dev`: 60 s, the default timeout of one model call (settings.Role.Timeout),
// so that the call a stopping worker has in flight answers and is recorded
// instead of being paid for again by the next worker (clinevo's choice).
// Whatever stops a worker must wait longer before it kills it
// (docker-compose.yml: stop_grace_period).
const StopTimeout = 60 * time.Second

// ErrNoData is returned (wrapped) by a reader's Open of a data directory
// that holds no store: nothing has run there.
var ErrNoData = errors.New("nothing has run with this data_dir")

// readerPaths are the embedded stores' files for a reader. A store file that
// is missing is opened in memory, empty, so that a reader creates no file;
// when every store is embedded and none is there, the data_dir is wrong (or
// nothing has run there yet), and the reader says so instead of showing
// nothing.
func readerPaths(o Options) (results, memory string, err error) {
	results, memory = filepath.Join(o.DataDir, "results.db"), filepath.Join(o.DataDir, "memory.db")
	found := 0
	for _, p := range []*string{&results, &memory} {
		switch _, err := os.Stat(*p); {
		case errors.Is(err, fs.ErrNotExist):
			*p = ":memory:"
		case err != nil:
			return "", "", fmt.Errorf("engine: %w", err)
		default:
			found++
		}
	}
	if found == 0 && o.Postgres == nil && o.Qdrant == nil {
		return "", "", fmt.Errorf("engine: neither results.db nor memory.db is in %s: %w (set --data-dir or data_dir to where the worker writes)", o.DataDir, ErrNoData)
	}
	return results, memory, nil
}

// Open opens the results store (PostgreSQL, or DataDir/results.db) and the
// memory bank (Qdrant, or DataDir/memory.db). A reader (ReadOnly) opens them
// read-only: it creates no directory, file, table or collection and writes
// nothing, so it reads stores it may not write.
func Open(ctx context.Context, o Options) (*Engine, error) {
	set, err := Benchmarks()
	if err != nil {
		return nil, err
	}
	resultsPath, memoryPath := filepath.Join(o.DataDir, "results.db"), filepath.Join(o.DataDir, "memory.db")
	if o.ReadOnly {
		var err error
		if resultsPath, memoryPath, err = readerPaths(o); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(o.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	res, err := openResults(ctx, o, resultsPath)
	if err != nil {
		return nil, err
	}
	rs := &roleSet{set: set, opts: llm.Options{Cache: res, RecordPrompts: o.PromptText, RateWindow: o.RateWindow, Secrets: o.secrets()},
		clients: map[string]*llm.Client{}, built: map[string]runner.Roles{}}
	var emb memory.Embedder = memory.HashEmbedder{D: o.MemoryDim}
	if o.Embeddings.Backend == settings.OpenAI {
		c, err := rs.client("embeddings", o.Embeddings)
		if err != nil {
			res.Close()
			return nil, fmt.Errorf("engine: %w", err)
		}
		emb = llm.Embedder{C: c}
	}
	var mem memory.Store
	backend := "local"
	if o.Qdrant != nil {
		backend = "qdrant"
		mem, err = qdrant.Open(ctx, *o.Qdrant, emb, !o.ReadOnly)
	} else if o.ReadOnly && memoryPath != ":memory:" {
		mem, err = local.OpenReader(ctx, memoryPath, emb)
	} else {
		mem, err = local.Open(ctx, memoryPath, emb)
	}
	if err != nil {
		res.Close()
		return nil, err
	}
	embeddings := o.Embeddings
	if embeddings.Backend == "" {
		embeddings.Backend = settings.Builtin
	}
	acts := &activities.Activities{Benchmarks: set, Corpora: activities.NewCorpora(corpus.NewLibrary(set)), Results: res, Memory: mem,
		MemoryBackend: backend, Embeddings: embeddings, Roles: rs.get}
	return &Engine{dir: o.DataDir, Benchmarks: set, Results: res, Memory: mem, Activities: acts, roles: rs}, nil
}

// openResults opens the results store: PostgreSQL, or the file at path
// (":memory:": a reader's empty store), for writing or (ReadOnly) reading.
func openResults(ctx context.Context, o Options, path string) (results.Store, error) {
	switch {
	case o.Postgres != nil && o.ReadOnly:
		return postgres.OpenReader(ctx, *o.Postgres)
	case o.Postgres != nil:
		return postgres.Open(ctx, *o.Postgres)
	case o.ReadOnly && path != ":memory:":
		return sqlite.OpenReader(ctx, path)
	}
	return sqlite.Open(ctx, path)
}

// OpenResultsReader opens only the results store, read-only, to look runs
// up (without the memory bank, which a lookup does not need). A data
// directory without results.db is ErrNoData.
func OpenResultsReader(ctx context.Context, o Options) (results.Store, error) {
	o.ReadOnly = true
	return openExistingResults(ctx, o)
}

// OpenResultsWriter opens only the results store, to write to a store that
// exists (a terminated run's reason): a data directory without results.db
// is ErrNoData, and no file is created there.
func OpenResultsWriter(ctx context.Context, o Options) (results.Store, error) {
	o.ReadOnly = false
	return openExistingResults(ctx, o)
}

func openExistingResults(ctx context.Context, o Options) (results.Store, error) {
	path := filepath.Join(o.DataDir, "results.db")
	if o.Postgres == nil {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("engine: no results.db in %s: %w", o.DataDir, ErrNoData)
		} else if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
	}
	return openResults(ctx, o, path)
}

// DataDir is where the engine's files are.
func (e *Engine) DataDir() string { return e.dir }

// Roles returns the roles of a run's settings (model clients built once per
// distinct role setting).
func (e *Engine) Roles(s settings.Settings) (runner.Roles, error) { return e.roles.get(s) }

// Close closes the stores.
func (e *Engine) Close() error {
	err := e.Memory.Close()
	if err2 := e.Results.Close(); err == nil {
		err = err2
	}
	return err
}

// NewWorker returns a worker on the clinevo task queue with every workflow and
// activity registered.
func (e *Engine) NewWorker(c client.Client, taskQueue string) worker.Worker {
	taskQueue = orQueue(taskQueue)
	// More pollers than the default two: evaluations run many episodes at once.
	w := worker.New(c, taskQueue, worker.Options{MaxConcurrentWorkflowTaskPollers: 8, MaxConcurrentActivityTaskPollers: 8,
		WorkerStopTimeout: e.WorkerStopTimeout})
	w.RegisterWorkflow(workflows.StreamWorkflow)
	w.RegisterWorkflow(workflows.EpisodeWorkflow)
	w.RegisterWorkflow(workflows.EvaluationWorkflow)
	w.RegisterWorkflow(workflows.ExperimentWorkflow)
	w.RegisterWorkflow(workflows.OptimizeWorkflow)
	w.RegisterActivity(e.Activities)
	return w
}

// RolesFor builds the roles of settings once, outside a worker (an episode run
// in process).
func RolesFor(s settings.Settings, o llm.Options) (runner.Roles, error) {
	set, err := Benchmarks()
	if err != nil {
		return runner.Roles{}, err
	}
	rs := &roleSet{set: set, opts: o, clients: map[string]*llm.Client{}, built: map[string]runner.Roles{}}
	return rs.get(s)
}

// roleSet builds the roles of each run's settings on first use and keeps
// them: runs with equal role settings share clients (and so their concurrency
// limits and cache). Keys are read from this process's environment only.
type roleSet struct {
	set     bench.Set
	mu      sync.Mutex
	opts    llm.Options
	clients map[string]*llm.Client  // role name + setting -> client
	built   map[string]runner.Roles // the settings that shape roles -> roles
}

func (r *roleSet) client(name string, s settings.Role) (*llm.Client, error) {
	key := name + "\x00" + mustJSON(s)
	if c, ok := r.clients[key]; ok {
		return c, nil
	}
	c, err := llm.NewClient(name, s, r.opts)
	if err != nil {
		return nil, err
	}
	r.clients[key] = c
	return c, nil
}

// get returns the roles of s: the built-in ones, with a model client for
// every role set to openai, in the run's benchmark's formats (its model
// doctor and judge, its labels and lessons). With MDT same_model the
// consultant runs on the doctor's model (MedEvoEval §5.2's same-model
// consultation). A judge that lacks what the benchmark needs is an error
// here, at start.
func (r *roleSet) get(s settings.Settings) (runner.Roles, error) {
	b, err := r.set.Of(s)
	if err != nil {
		return runner.Roles{}, err
	}
	key := mustJSON(struct {
		Benchmark string
		Roles     settings.Roles
		MDT       string
		Scoring   settings.Scoring
		Doctor    settings.Doctor
	}{s.Benchmark, s.Roles, s.Episode.MDT, s.Scoring, s.Doctor})
	r.mu.Lock()
	defer r.mu.Unlock()
	if out, ok := r.built[key]; ok {
		return out, nil
	}
	out := runner.BuiltinRoles()
	model := func(name string) (*llm.Client, error) {
		spec := s.Priced(name) // prices from model_prices where the role sets none
		if name == "consultant" && s.Episode.MDT == settings.MDTSameModel {
			spec = s.Priced("doctor")
		}
		if spec.Backend != settings.OpenAI {
			return nil, nil
		}
		return r.client(name, spec)
	}
	for _, name := range []string{"doctor", "patient", "exam", "consultant", "judge", "grader", "evolver"} {
		c, err := model(name)
		if err != nil {
			return runner.Roles{}, err
		}
		if c == nil {
			continue
		}
		switch name {
		case "doctor":
			out.Doctor = llm.DoctorFor(b, c)
		case "patient":
			out.Env.Patient = llm.Patient{C: c}
		case "exam":
			out.Env.Exam = llm.Exam{C: c}
		case "consultant":
			out.Env.Consultant = llm.Consultant{C: c}
		case "judge":
			out.Judge = llm.JudgeFor(b, llm.Judge{C: c, Fallback: grader.RubricJudge{W: s.Scoring}}, s)
		case "grader":
			out.Grader = llm.ProcessGrader{C: c, Labels: grader.LabelerOf(b), Bench: b}
		case "evolver":
			out.Evolver = llm.Evolver{C: c, Lessons: evolver.LessonsOf(b)}
			out.Model = llm.Method{C: c}
		}
	}
	if s.Doctor.Panel() {
		p, err := r.panel(b, s, out.Doctor)
		if err != nil {
			return runner.Roles{}, err
		}
		out.Doctor = p
	}
	if err := r.extraRoles(b, model, &out); err != nil {
		return runner.Roles{}, err
	}
	if err := bench.CheckJudge(b, out.Judge); err != nil {
		return runner.Roles{}, err
	}
	r.built[key] = out
	return out, nil
}

// panel is the panel doctor (doctor.mode: panel) over base, the run's
// single doctor: on roles.doctor's model, one client per panel role named
// doctor.<role> so that model use is counted per role, or built-in.
func (r *roleSet) panel(b bench.Benchmark, s settings.Settings, base actor.Doctor) (actor.Doctor, error) {
	if base == nil {
		base = actor.BuiltinFor(b)
	}
	spec := s.Roles["doctor"]
	if spec.Backend != settings.OpenAI {
		return actor.BuiltinPanel(base), nil
	}
	clients := map[string]*llm.Client{}
	for _, role := range actor.PanelRoles {
		name := "doctor." + role
		key := name + "\x00" + mustJSON(spec)
		c, ok := r.clients[key]
		if !ok {
			var err error
			if c, err = llm.NewClient("doctor", spec, r.opts); err != nil {
				return nil, err
			}
			c.Role = name
			r.clients[key] = c
		}
		clients[role] = c
	}
	return llm.PanelDoctorFor(b, clients, base), nil
}

// extraRoles builds the model-backed roles benchmark b adds (bench.Roles)
// into out.Env.Extra; a role left built-in is not there.
func (r *roleSet) extraRoles(b bench.Benchmark, model func(string) (*llm.Client, error), out *runner.Roles) error {
	rs, ok := b.(bench.Roles)
	if !ok {
		return nil
	}
	for _, name := range rs.Roles() {
		c, err := model(name)
		if err != nil {
			return err
		}
		if c == nil {
			continue
		}
		mk, ok := b.(llm.RoleMaker)
		if !ok {
			return fmt.Errorf("roles.%s: benchmark %s has no model-backed form of it", name, b.Name())
		}
		role, err := mk.ModelRole(name, c)
		if err != nil {
			return fmt.Errorf("roles.%s: %w", name, err)
		}
		if out.Env.Extra == nil {
			out.Env.Extra = map[string]any{}
		}
		out.Env.Extra[name] = role
	}
	return nil
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v) // role settings are plain data: Marshal cannot fail
	return string(b)
}
