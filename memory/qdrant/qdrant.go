// Package qdrant is the memory.Store on a Qdrant server (gRPC, go-client).
//
// All banks live in one collection with a "bank" payload field rather than one
// collection per bank: as-of queries, retention replays and run purges cut
// across banks, and one collection keeps them single requests with one set of
// payload indexes. The collection records the embedder model in its metadata
// and its vector size; opening it with another embedder is an error.
package qdrant

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/memory"
)

// Config points at a Qdrant server.
type Config struct {
	Host       string `mapstructure:"host" json:"host"`
	Port       int    `mapstructure:"port" json:"port"` // gRPC port, default 6334
	APIKey     string `mapstructure:"-" json:"-"`       // from the environment, never from a file
	UseTLS     bool   `mapstructure:"tls" json:"tls"`
	Collection string `mapstructure:"collection" json:"collection"`
}

// Store is a memory.Store on Qdrant.
type Store struct {
	c    *qc.Client
	name string
	emb  memory.Embedder
}

var _ memory.Store = (*Store)(nil)

// Payload fields; every one the filters use has an index.
const (
	fRun, fBank, fKind, fPass, fStage, fCase    = "run", "bank", "kind", "pass", "stage", "source_case"
	fCreated, fEvicted, fRetrievals, fLastRetrv = "created_episode", "evicted_episode", "retrievals", "last_retrieved"
	fBody, fUtility                             = "body", "utility" // utility: the history as JSON, "" for none
	metaModel                                   = "clinevo_embedder"
)

// Open connects and checks (or, with create, makes) the collection. It fails
// clearly when the server is unreachable, the collection is missing (without
// create), or its vector size or embedder differs.
func Open(ctx context.Context, cfg Config, emb memory.Embedder, create bool) (*Store, error) {
	if cfg.Port == 0 {
		cfg.Port = 6334
	}
	if cfg.Collection == "" {
		cfg.Collection = "clinevo_cards"
	}
	// After an outage gRPC reconnects with a backoff that grows to two minutes
	// by default; capped at five seconds (clinevo's own choice), a bank that
	// is back is used again within seconds, as a run's own backoff allows
	// (durability.max_backoff).
	reconnect := grpc.WithConnectParams(grpc.ConnectParams{MinConnectTimeout: 5 * time.Second,
		Backoff: backoff.Config{BaseDelay: time.Second, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 5 * time.Second}})
	c, err := qc.NewClient(&qc.Config{Host: cfg.Host, Port: cfg.Port, APIKey: cfg.APIKey, UseTLS: cfg.UseTLS, SkipCompatibilityCheck: true, PoolSize: 1,
		GrpcOptions: []grpc.DialOption{reconnect}})
	if err != nil {
		return nil, fmt.Errorf("memory/qdrant: connect %s:%d: %w", cfg.Host, cfg.Port, err)
	}
	s := &Store{c: c, name: cfg.Collection, emb: emb}
	if err := s.ensure(ctx, create); err != nil {
		c.Close()
		return nil, classify(fmt.Errorf("memory/qdrant %s:%d: %w", cfg.Host, cfg.Port, err))
	}
	return s, nil
}

// Dependency names this store in failures and waits.
const Dependency = "memory/qdrant"

// classify tags err with its fault class from its gRPC status: a server that
// is unreachable, restarting or aborting is unavailable, one that asks for
// fewer requests rate limited, an ended deadline a timeout, an internal error
// a server error; a refused API key is unauthorized, a request the server
// cannot serve (a missing collection, an argument it rejects) invalid.
// Errors without a status are classified as fault.Network does. nil, a
// missing card and an error classified already stay as they are (a failed
// embedding keeps the model's class).
func classify(err error) error {
	var f *fault.Error
	if err == nil || errors.Is(err, memory.ErrNotFound) || errors.As(err, &f) {
		return err
	}
	var st interface{ GRPCStatus() *status.Status }
	if errors.As(err, &st) {
		switch st.GRPCStatus().Code() {
		case codes.Unavailable, codes.Aborted:
			return fault.New(Dependency, fault.Unavailable, err)
		case codes.ResourceExhausted:
			return fault.New(Dependency, fault.RateLimited, err)
		case codes.DeadlineExceeded, codes.Canceled:
			return fault.New(Dependency, fault.Timeout, err)
		case codes.Internal, codes.Unknown, codes.DataLoss:
			return fault.New(Dependency, fault.ServerError, err)
		case codes.Unauthenticated, codes.PermissionDenied:
			return fault.Permanent(Dependency, fault.Unauthorized, "check the API key in the variable memory.qdrant.api_key_env names", err)
		case codes.NotFound:
			return fault.Permanent(Dependency, fault.Invalid, "check memory.qdrant.collection, or let a worker create the bank", err)
		case codes.InvalidArgument, codes.FailedPrecondition, codes.OutOfRange, codes.Unimplemented, codes.AlreadyExists:
			return fault.Permanent(Dependency, fault.Invalid, "the server refused the request: check that it is a Qdrant of version 1.17 or later", err)
		}
	}
	if c, ok := fault.Network(err); ok {
		return fault.New(Dependency, c, err)
	}
	return fault.New(Dependency, fault.Unknown, err)
}

func (s *Store) ensure(ctx context.Context, create bool) error {
	exists, err := s.c.CollectionExists(ctx, s.name)
	if err != nil {
		return fmt.Errorf("unreachable or refusing requests: %w", err)
	}
	want := fmt.Sprintf("%s/%d", s.emb.Model(), s.emb.Dim())
	if !exists {
		if !create {
			return fmt.Errorf("collection %q does not exist (write a bank first, or check memory.qdrant.collection)", s.name)
		}
		err := s.c.CreateCollection(ctx, &qc.CreateCollection{CollectionName: s.name,
			VectorsConfig: qc.NewVectorsConfig(&qc.VectorParams{Size: uint64(s.emb.Dim()), Distance: qc.Distance_Cosine}),
			Metadata:      qc.NewValueMap(map[string]any{metaModel: want})})
		if err != nil {
			// Workers starting together race to create the bank: the loser
			// finds it created by another and checks it like any existing one.
			if exists, xerr := s.c.CollectionExists(ctx, s.name); xerr == nil && exists {
				return s.ensure(ctx, false)
			}
			return fmt.Errorf("create collection %q: %w", s.name, err)
		}
		for field, typ := range map[string]qc.FieldType{fRun: qc.FieldType_FieldTypeKeyword, fBank: qc.FieldType_FieldTypeKeyword,
			fKind: qc.FieldType_FieldTypeKeyword, fCase: qc.FieldType_FieldTypeKeyword, fPass: qc.FieldType_FieldTypeInteger,
			fStage: qc.FieldType_FieldTypeInteger, fCreated: qc.FieldType_FieldTypeInteger, fEvicted: qc.FieldType_FieldTypeInteger} {
			t := typ
			if _, err := s.c.CreateFieldIndex(ctx, &qc.CreateFieldIndexCollection{CollectionName: s.name, FieldName: field, FieldType: &t, Wait: ptr(true)}); err != nil {
				return fmt.Errorf("index %s: %w", field, err)
			}
		}
		return nil
	}
	info, err := s.c.GetCollectionInfo(ctx, s.name)
	if err != nil {
		return fmt.Errorf("collection %q: %w", s.name, err)
	}
	size := info.GetConfig().GetParams().GetVectorsConfig().GetParams().GetSize()
	if int(size) != s.emb.Dim() {
		return fault.Permanent(Dependency, fault.Schema, "start the worker with the embedder the bank was built with (roles.embeddings, memory.dim) or another memory.qdrant.collection",
			fmt.Errorf("dimension mismatch: collection %q holds %d-dimensional vectors, the embedder makes %d", s.name, size, s.emb.Dim()))
	}
	if have := info.GetConfig().GetMetadata()[metaModel].GetStringValue(); have != "" && have != want {
		return fault.Permanent(Dependency, fault.Schema, "start the worker with the embedder the bank was built with (roles.embeddings, memory.dim) or another memory.qdrant.collection",
			fmt.Errorf("embedder mismatch: collection %q was built with %s, this store uses %s", s.name, have, want))
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// Close closes the connection.
func (s *Store) Close() error { return s.c.Close() }

func payload(c clinic.Card) (map[string]any, error) {
	c.EvictedEpisode, c.Retrievals, c.LastRetrieved, c.Utility = 0, 0, 0, nil
	body, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return map[string]any{fRun: c.Run, fBank: c.Bank, fKind: string(c.Kind), fPass: int64(c.Pass), fStage: int64(c.Stage),
		fCase: c.SourceCase, fCreated: int64(c.CreatedEpisode), fBody: string(body)}, nil
}

func card(p map[string]*qc.Value) (clinic.Card, error) {
	var c clinic.Card
	if err := json.Unmarshal([]byte(p[fBody].GetStringValue()), &c); err != nil {
		return clinic.Card{}, fmt.Errorf("card body: %w", err)
	}
	c.EvictedEpisode = int(p[fEvicted].GetIntegerValue())
	c.Retrievals = int(p[fRetrievals].GetIntegerValue())
	c.LastRetrieved = int(p[fLastRetrv].GetIntegerValue())
	if u := p[fUtility].GetStringValue(); u != "" {
		if err := json.Unmarshal([]byte(u), &c.Utility); err != nil {
			return clinic.Card{}, fmt.Errorf("card %s: utility: %w", c.ID, err)
		}
	}
	return c, nil
}

// utilityPayload is a utility history as the payload holds it.
func utilityPayload(u []clinic.Utility) (string, error) {
	if len(u) == 0 {
		return "", nil
	}
	b, err := json.Marshal(u)
	return string(b), err
}

// counters reads the eviction and retrieval counters of existing points.
func (s *Store) counters(ctx context.Context, ids []string) (map[string]clinic.Card, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	pids := make([]*qc.PointId, len(ids))
	for i, id := range ids {
		pids[i] = qc.NewID(id)
	}
	pts, err := s.c.Get(ctx, &qc.GetPoints{CollectionName: s.name, Ids: pids, WithPayload: qc.NewWithPayload(true)})
	if err != nil {
		return nil, err
	}
	out := map[string]clinic.Card{}
	for _, p := range pts {
		c, err := card(p.Payload)
		if err != nil {
			return nil, err
		}
		out[p.Id.GetUuid()] = c
	}
	return out, nil
}

// Upsert writes cards; existing cards keep their eviction and retrieval counters.
func (s *Store) Upsert(ctx context.Context, cards []clinic.Card) (err error) {
	defer func() { err = classify(err) }()
	if len(cards) == 0 {
		return nil
	}
	texts := make([]string, len(cards))
	ids := make([]string, len(cards))
	for i, c := range cards {
		if c.ID == "" {
			return fmt.Errorf("memory/qdrant: upsert: card %d has no id", i)
		}
		texts[i], ids[i] = c.SearchText, c.ID
	}
	vecs, err := s.emb.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("memory/qdrant: upsert: embed: %w", err)
	}
	old, err := s.counters(ctx, ids)
	if err != nil {
		return fmt.Errorf("memory/qdrant: upsert: %w", err)
	}
	points := make([]*qc.PointStruct, len(cards))
	for i, c := range cards {
		if len(vecs[i]) != s.emb.Dim() {
			return fmt.Errorf("memory/qdrant: upsert: card %s: vector has %d dimensions, the bank has %d", c.ID, len(vecs[i]), s.emb.Dim())
		}
		p, err := payload(c)
		if err != nil {
			return fmt.Errorf("memory/qdrant: upsert: %w", err)
		}
		o := old[c.ID]
		p[fEvicted], p[fRetrievals], p[fLastRetrv] = int64(o.EvictedEpisode), int64(o.Retrievals), int64(o.LastRetrieved)
		if p[fUtility], err = utilityPayload(o.Utility); err != nil {
			return fmt.Errorf("memory/qdrant: upsert: %w", err)
		}
		points[i] = &qc.PointStruct{Id: qc.NewID(c.ID), Vectors: qc.NewVectorsDense(vecs[i]), Payload: qc.NewValueMap(p)}
	}
	if _, err := s.c.Upsert(ctx, &qc.UpsertPoints{CollectionName: s.name, Points: points, Wait: ptr(true)}); err != nil {
		return fmt.Errorf("memory/qdrant: upsert: %w", err)
	}
	return nil
}

// filter translates a memory.Filter, as-of included: created at or before N
// and (never evicted, or evicted after N).
func filter(f memory.Filter) *qc.Filter {
	q := &qc.Filter{}
	if len(f.Runs) > 0 {
		q.Must = append(q.Must, qc.NewMatchKeywords(fRun, f.Runs...))
	}
	if f.Bank != "" {
		q.Must = append(q.Must, qc.NewMatchKeyword(fBank, f.Bank))
	}
	if len(f.Kinds) > 0 {
		ks := make([]string, len(f.Kinds))
		for i, k := range f.Kinds {
			ks[i] = string(k)
		}
		q.Must = append(q.Must, qc.NewMatchKeywords(fKind, ks...))
	}
	if f.Pass != 0 {
		q.Must = append(q.Must, qc.NewMatchInt(fPass, int64(f.Pass)))
	}
	if f.Stage != 0 {
		q.Must = append(q.Must, qc.NewMatchInt(fStage, int64(f.Stage)))
	}
	switch {
	case f.AsOf > 0:
		n := float64(f.AsOf)
		q.Must = append(q.Must, qc.NewRange(fCreated, &qc.Range{Lte: &n}),
			qc.NewFilterAsCondition(&qc.Filter{Should: []*qc.Condition{qc.NewMatchInt(fEvicted, 0), qc.NewRange(fEvicted, &qc.Range{Gt: &n})}}))
	case !f.IncludeEvicted:
		q.Must = append(q.Must, qc.NewMatchInt(fEvicted, 0))
	}
	return q
}

// Search queries by cosine similarity; ties are broken by ID as in every store.
func (s *Store) Search(ctx context.Context, q memory.Query) (_ []memory.Hit, err error) {
	defer func() { err = classify(err) }()
	vecs, err := s.emb.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, fmt.Errorf("memory/qdrant: search: embed: %w", err)
	}
	limit := uint64(q.K + 16) // room to break ties at the cut the same way as memory.TopK
	if q.K <= 0 {
		limit = 1 << 20
	}
	pts, err := s.c.Query(ctx, &qc.QueryPoints{CollectionName: s.name, Query: qc.NewQueryDense(vecs[0]), Filter: filter(q.Filter),
		Limit: &limit, WithPayload: qc.NewWithPayload(true)})
	if err != nil {
		return nil, fmt.Errorf("memory/qdrant: search: %w", err)
	}
	hits := make([]memory.Hit, 0, len(pts))
	for _, p := range pts {
		c, err := card(p.Payload)
		if err != nil {
			return nil, err
		}
		memory.UtilityAsOf(&c, q.Filter)
		hits = append(hits, memory.Hit{Card: c, Score: float64(p.Score)})
	}
	return memory.TopK(hits, q.K), nil
}

// Get returns one card.
func (s *Store) Get(ctx context.Context, id string) (_ clinic.Card, err error) {
	defer func() { err = classify(err) }()
	m, err := s.counters(ctx, []string{id})
	if err != nil {
		return clinic.Card{}, fmt.Errorf("memory/qdrant: get %s: %w", id, err)
	}
	c, ok := m[id]
	if !ok {
		return clinic.Card{}, fmt.Errorf("memory/qdrant: get %s: %w", id, memory.ErrNotFound)
	}
	return c, nil
}

// List scrolls every selected card, ordered by creation episode then ID.
func (s *Store) List(ctx context.Context, f memory.Filter) (_ []clinic.Card, err error) {
	defer func() { err = classify(err) }()
	var out []clinic.Card
	var offset *qc.PointId
	limit := uint32(256)
	for {
		pts, next, err := s.c.ScrollAndOffset(ctx, &qc.ScrollPoints{CollectionName: s.name, Filter: filter(f), Offset: offset,
			Limit: &limit, WithPayload: qc.NewWithPayload(true)})
		if err != nil {
			return nil, fmt.Errorf("memory/qdrant: list: %w", err)
		}
		for _, p := range pts {
			c, err := card(p.Payload)
			if err != nil {
				return nil, err
			}
			memory.UtilityAsOf(&c, f)
			out = append(out, c)
		}
		if next == nil {
			break
		}
		offset = next
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].CreatedEpisode != out[j].CreatedEpisode {
			return out[i].CreatedEpisode < out[j].CreatedEpisode
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

func (s *Store) setPayload(ctx context.Context, id string, p map[string]any) error {
	_, err := s.c.SetPayload(ctx, &qc.SetPayloadPoints{CollectionName: s.name, Payload: qc.NewValueMap(p), Wait: ptr(true),
		PointsSelector: qc.NewPointsSelector(qc.NewID(id))})
	return err
}

// Evict soft-deletes cards; a card keeps its first eviction episode.
func (s *Store) Evict(ctx context.Context, ids []string, episode int) (err error) {
	defer func() { err = classify(err) }()
	old, err := s.counters(ctx, ids)
	if err != nil {
		return fmt.Errorf("memory/qdrant: evict: %w", err)
	}
	for _, id := range ids {
		if c, ok := old[id]; ok && c.EvictedEpisode == 0 {
			if err := s.setPayload(ctx, id, map[string]any{fEvicted: int64(episode)}); err != nil {
				return fmt.Errorf("memory/qdrant: evict %s: %w", id, err)
			}
		}
	}
	return nil
}

// MarkRetrieved counts one retrieval per card per episode.
func (s *Store) MarkRetrieved(ctx context.Context, ids []string, episode int) (err error) {
	defer func() { err = classify(err) }()
	old, err := s.counters(ctx, ids)
	if err != nil {
		return fmt.Errorf("memory/qdrant: mark retrieved: %w", err)
	}
	for _, id := range ids {
		if c, ok := old[id]; ok && c.LastRetrieved < episode {
			if err := s.setPayload(ctx, id, map[string]any{fRetrievals: int64(c.Retrievals + 1), fLastRetrv: int64(episode)}); err != nil {
				return fmt.Errorf("memory/qdrant: mark retrieved %s: %w", id, err)
			}
		}
	}
	return nil
}

// Credit adds utility updates; the first update of a card at an episode wins.
func (s *Store) Credit(ctx context.Context, credits []memory.Credit) (err error) {
	defer func() { err = classify(err) }()
	if err := memory.CheckCredits(credits); err != nil || len(credits) == 0 {
		return err
	}
	ids := make([]string, len(credits))
	for i, c := range credits {
		ids[i] = c.Card
	}
	old, err := s.counters(ctx, ids)
	if err != nil {
		return fmt.Errorf("memory/qdrant: credit: %w", err)
	}
	changed := map[string]bool{}
	for _, c := range credits {
		card, ok := old[c.Card]
		if !ok {
			continue // an unknown card: skipped, as Evict skips one
		}
		var added bool
		if card.Utility, added = memory.Credited(card.Utility, c.Utility); added {
			old[c.Card], changed[c.Card] = card, true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(changed)) {
		u, err := utilityPayload(old[id].Utility)
		if err == nil {
			err = s.setPayload(ctx, id, map[string]any{fUtility: u})
		}
		if err != nil {
			return fmt.Errorf("memory/qdrant: credit %s: %w", id, err)
		}
	}
	return nil
}

// Stats summarises the selected cards.
func (s *Store) Stats(ctx context.Context, f memory.Filter) (memory.Stats, error) {
	return memory.StatsOf(ctx, s, f, s.emb)
}

// Purge deletes every card of a run, for good.
func (s *Store) Purge(ctx context.Context, run string) (err error) {
	defer func() { err = classify(err) }()
	_, err = s.c.Delete(ctx, &qc.DeletePoints{CollectionName: s.name, Wait: ptr(true),
		Points: qc.NewPointsSelectorFilter(&qc.Filter{Must: []*qc.Condition{qc.NewMatchKeyword(fRun, run)}})})
	if err != nil {
		return fmt.Errorf("memory/qdrant: purge %s: %w", run, err)
	}
	return nil
}

// NotFound reports whether err is Qdrant's not-found.
func NotFound(err error) bool {
	var st interface{ GRPCStatus() *status.Status }
	return errors.As(err, &st) && st.GRPCStatus().Code() == codes.NotFound
}
