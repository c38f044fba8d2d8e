// Package engine wires clinevo's ports into a Temporal worker: it opens the
// results store and the memory bank under the data directory, builds the
// activities with the configured roles, and registers the workflows.
package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
	"github.com/clinevo/clinevo/memory/qdrant"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/workflows"
)

// Options choose the engine's parts.
type Options struct {
	DataDir   string
	Qdrant    *qdrant.Config // nil: the embedded bank (memory.db)
	ReadOnly  bool           // do not create a missing Qdrant collection
	MemoryDim int            // hashing embedder dimension; 0: default
	Roles     llm.Roles      // model-backed roles; absent roles are built in
	// PromptText puts prompt text on model-call spans (telemetry.prompt_text).
	PromptText bool
}

// Engine holds the open stores and the activities built on them.
type Engine struct {
	dir        string
	Results    *results.Store
	Memory     memory.Store
	Activities *activities.Activities
}

// Open opens DataDir/results.db and DataDir/memory.db.
func Open(ctx context.Context, o Options) (*Engine, error) {
	if err := os.MkdirAll(o.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	res, err := results.Open(ctx, filepath.Join(o.DataDir, "results.db"))
	if err != nil {
		return nil, err
	}
	acts := &activities.Activities{Corpora: activities.NewCorpora(), Results: res, Doctor: actor.Builtin{},
		Roles: episode.BuiltinRoles(), RoleInfo: o.Roles.Describe()}
	clients := map[string]*llm.Client{}
	for _, name := range llm.RoleNames {
		if !o.Roles.Model(name) {
			continue
		}
		c, err := llm.NewClient(name, o.Roles[name].Settings, llm.Options{Cache: res, RecordPrompts: o.PromptText})
		if err != nil {
			res.Close()
			return nil, fmt.Errorf("engine: %w", err)
		}
		clients[name] = c
	}
	var emb memory.Embedder = memory.HashEmbedder{D: o.MemoryDim}
	if c := clients["embeddings"]; c != nil {
		emb = llm.Embedder{C: c}
	}
	if c := clients["doctor"]; c != nil {
		acts.Doctor = llm.Doctor{C: c}
	}
	if c := clients["patient"]; c != nil {
		acts.Roles.Patient = llm.Patient{C: c}
	}
	if c := clients["exam"]; c != nil {
		acts.Roles.Exam = llm.Exam{C: c}
	}
	if c := clients["consultant"]; c != nil {
		acts.Roles.Consultant = llm.Consultant{C: c}
	}
	if c := clients["grader"]; c != nil {
		acts.Grader = llm.ProcessGrader{C: c}
	}
	if c := clients["evolver"]; c != nil {
		acts.Evolver = llm.Evolver{C: c}
	}
	var mem memory.Store
	if o.Qdrant != nil {
		mem, err = qdrant.Open(ctx, *o.Qdrant, emb, !o.ReadOnly)
	} else {
		mem, err = local.Open(ctx, filepath.Join(o.DataDir, "memory.db"), emb)
	}
	if err != nil {
		res.Close()
		return nil, err
	}
	acts.Memory = mem
	e := &Engine{dir: o.DataDir, Results: res, Memory: mem, Activities: acts}
	if c := clients["judge"]; c != nil {
		acts.Judge = llm.Judge{C: c} // its rubric fallback takes each run's weights (activities)
	}
	return e, nil
}

// DataDir is where the engine's files are.
func (e *Engine) DataDir() string { return e.dir }

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
	if taskQueue == "" {
		taskQueue = workflows.TaskQueue
	}
	// More pollers than the default two: evaluations run many episodes at once.
	w := worker.New(c, taskQueue, worker.Options{MaxConcurrentWorkflowTaskPollers: 8, MaxConcurrentActivityTaskPollers: 8})
	w.RegisterWorkflow(workflows.StreamWorkflow)
	w.RegisterWorkflow(workflows.EpisodeWorkflow)
	w.RegisterWorkflow(workflows.EvaluationWorkflow)
	w.RegisterWorkflow(workflows.ExperimentWorkflow)
	w.RegisterActivity(e.Activities)
	return w
}
