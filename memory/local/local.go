// Package local is the embedded memory bank: cards in a SQLite file
// (modernc.org/sqlite, pure Go) with exact cosine search over an in-memory copy
// of the vectors and filter fields.
package local

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/memory"
)

// Store is a memory.Store on one SQLite file. It holds a single connection so
// that PRAGMA data_version reveals writes by other processes, which trigger a
// reload of the in-memory index.
type Store struct {
	db  *sql.DB
	emb memory.Embedder

	mu      sync.Mutex
	version int64
	index   map[string]*entry
	list    []*entry // the same entries, for scanning without map iteration
}

type entry struct {
	card clinic.Card // without text fields, to keep the index small
	vec  []float32
}

var _ memory.Store = (*Store)(nil)

const schema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cards (
  id TEXT PRIMARY KEY,
  run TEXT NOT NULL, bank TEXT NOT NULL, kind TEXT NOT NULL,
  pass INTEGER NOT NULL, stage INTEGER NOT NULL, source_case TEXT NOT NULL,
  created_episode INTEGER NOT NULL, evicted_episode INTEGER NOT NULL DEFAULT 0,
  retrievals INTEGER NOT NULL DEFAULT 0, last_retrieved INTEGER NOT NULL DEFAULT 0,
  body TEXT NOT NULL, vector BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS cards_run ON cards(run, created_episode);
`

// Open opens or creates a bank file. The embedder's model and dimension are
// recorded on creation; opening with a different embedder is an error.
func Open(ctx context.Context, path string, emb memory.Embedder) (*Store, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return nil, fmt.Errorf("memory/local: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	s := &Store{db: db, emb: emb}
	if err := s.init(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("memory/local: open %s: %w", path, err)
	}
	return s, nil
}

func (s *Store) init(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, schema); err != nil {
		return err
	}
	want := fmt.Sprintf("%s/%d", s.emb.Model(), s.emb.Dim())
	var have string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='embedder'`).Scan(&have)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := s.db.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES('embedder', ?)`, want); err != nil {
			return err
		}
	case err != nil:
		return err
	case have != want:
		return fmt.Errorf("embedder mismatch: the bank was built with %s, this store uses %s", have, want)
	}
	return s.reload(ctx)
}

func (s *Store) dataVersion(ctx context.Context) (int64, error) {
	var v int64
	err := s.db.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v)
	return v, err
}

// reload rebuilds the in-memory index from the file. Callers hold s.mu or own s.
func (s *Store) reload(ctx context.Context) error {
	v, err := s.dataVersion(ctx)
	if err != nil {
		return err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT body, vector, evicted_episode, retrievals, last_retrieved FROM cards`)
	if err != nil {
		return err
	}
	defer rows.Close()
	idx := map[string]*entry{}
	for rows.Next() {
		var body string
		var blob []byte
		var ev, ret, last int
		if err := rows.Scan(&body, &blob, &ev, &ret, &last); err != nil {
			return err
		}
		var c clinic.Card
		if err := json.Unmarshal([]byte(body), &c); err != nil {
			return fmt.Errorf("card body: %w", err)
		}
		c.EvictedEpisode, c.Retrievals, c.LastRetrieved = ev, ret, last
		idx[c.ID] = &entry{card: slim(c), vec: decodeVec(blob)}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	s.index, s.version = idx, v
	s.list = s.list[:0]
	for _, e := range idx {
		s.list = append(s.list, e)
	}
	return nil
}

// fresh reloads the index if another process wrote to the file.
func (s *Store) fresh(ctx context.Context) error {
	v, err := s.dataVersion(ctx)
	if err != nil {
		return err
	}
	if v != s.version {
		return s.reload(ctx)
	}
	return nil
}

func slim(c clinic.Card) clinic.Card {
	c.Text, c.SearchText = "", ""
	c.Ask, c.Tests, c.Evidence, c.Plan, c.Followup = nil, nil, nil, nil, nil
	return c
}

func encodeVec(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVec(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// Upsert writes cards in one transaction. An existing card keeps its eviction
// and retrieval counters, so replaying a write never resurrects or resets a card.
func (s *Store) Upsert(ctx context.Context, cards []clinic.Card) error {
	if len(cards) == 0 {
		return nil
	}
	texts := make([]string, len(cards))
	for i, c := range cards {
		if c.ID == "" {
			return fmt.Errorf("memory/local: upsert: card %d has no id", i)
		}
		texts[i] = c.SearchText
	}
	vecs, err := s.emb.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("memory/local: upsert: embed: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fresh(ctx); err != nil {
		return fmt.Errorf("memory/local: upsert: %w", err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("memory/local: upsert: %w", err)
	}
	defer tx.Rollback()
	for i, c := range cards {
		if len(vecs[i]) != s.emb.Dim() {
			return fmt.Errorf("memory/local: upsert: card %s: vector has %d dimensions, the bank has %d", c.ID, len(vecs[i]), s.emb.Dim())
		}
		c.EvictedEpisode, c.Retrievals, c.LastRetrieved = 0, 0, 0
		body, err := json.Marshal(c)
		if err != nil {
			return fmt.Errorf("memory/local: upsert: %w", err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO cards(id, run, bank, kind, pass, stage, source_case, created_episode, body, vector)
			VALUES(?,?,?,?,?,?,?,?,?,?)
			ON CONFLICT(id) DO UPDATE SET run=excluded.run, bank=excluded.bank, kind=excluded.kind, pass=excluded.pass,
			  stage=excluded.stage, source_case=excluded.source_case, created_episode=excluded.created_episode,
			  body=excluded.body, vector=excluded.vector`,
			c.ID, c.Run, c.Bank, string(c.Kind), c.Pass, c.Stage, c.SourceCase, c.CreatedEpisode, string(body), encodeVec(vecs[i]))
		if err != nil {
			return fmt.Errorf("memory/local: upsert %s: %w", c.ID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("memory/local: upsert: %w", err)
	}
	for i, c := range cards {
		e, ok := s.index[c.ID]
		if ok {
			keep := e.card
			c.EvictedEpisode, c.Retrievals, c.LastRetrieved = keep.EvictedEpisode, keep.Retrievals, keep.LastRetrieved
		} else {
			c.EvictedEpisode, c.Retrievals, c.LastRetrieved = 0, 0, 0
		}
		if ok {
			e.card, e.vec = slim(c), vecs[i]
			continue
		}
		ne := &entry{card: slim(c), vec: vecs[i]}
		s.index[c.ID] = ne
		s.list = append(s.list, ne)
	}
	return nil
}

// Search scores every card the filter selects by exact cosine similarity.
func (s *Store) Search(ctx context.Context, q memory.Query) ([]memory.Hit, error) {
	vecs, err := s.emb.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, fmt.Errorf("memory/local: search: embed: %w", err)
	}
	s.mu.Lock()
	if err := s.fresh(ctx); err != nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("memory/local: search: %w", err)
	}
	// Keep only the best K while scanning: sorting every candidate would cost
	// more than the similarities at 100K cards.
	type cand struct {
		e     *entry
		score float64
	}
	better := func(a, b cand) bool {
		if a.score != b.score {
			return a.score > b.score
		}
		return a.e.card.ID < b.e.card.ID
	}
	var top []cand
	for _, e := range s.list {
		if !memory.Match(&e.card, q.Filter) {
			continue
		}
		c := cand{e, memory.Cosine(vecs[0], e.vec)}
		if q.K <= 0 {
			top = append(top, c)
			continue
		}
		if len(top) == q.K && !better(c, top[len(top)-1]) {
			continue
		}
		i := len(top)
		top = append(top, c)
		for ; i > 0 && better(c, top[i-1]); i-- {
			top[i] = top[i-1]
		}
		top[i] = c
		if len(top) > q.K {
			top = top[:q.K]
		}
	}
	if q.K <= 0 {
		sort.Slice(top, func(i, j int) bool { return better(top[i], top[j]) })
	}
	hits := make([]memory.Hit, len(top))
	for i, c := range top {
		hits[i] = memory.Hit{Card: c.e.card, Score: c.score}
	}
	s.mu.Unlock()
	for i := range hits {
		c, err := s.Get(ctx, hits[i].Card.ID)
		if err != nil {
			return nil, fmt.Errorf("memory/local: search: %w", err)
		}
		hits[i].Card = c
	}
	return hits, nil
}

// Get returns one card.
func (s *Store) Get(ctx context.Context, id string) (clinic.Card, error) {
	var body string
	var ev, ret, last int
	err := s.db.QueryRowContext(ctx, `SELECT body, evicted_episode, retrievals, last_retrieved FROM cards WHERE id=?`, id).Scan(&body, &ev, &ret, &last)
	if errors.Is(err, sql.ErrNoRows) {
		return clinic.Card{}, fmt.Errorf("memory/local: get %s: %w", id, memory.ErrNotFound)
	}
	if err != nil {
		return clinic.Card{}, fmt.Errorf("memory/local: get %s: %w", id, err)
	}
	var c clinic.Card
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		return clinic.Card{}, fmt.Errorf("memory/local: get %s: %w", id, err)
	}
	c.EvictedEpisode, c.Retrievals, c.LastRetrieved = ev, ret, last
	return c, nil
}

// List returns the selected cards ordered by creation episode, then ID.
func (s *Store) List(ctx context.Context, f memory.Filter) ([]clinic.Card, error) {
	s.mu.Lock()
	if err := s.fresh(ctx); err != nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("memory/local: list: %w", err)
	}
	var ids []string
	for id, e := range s.index {
		if memory.Match(&e.card, f) {
			ids = append(ids, id)
		}
	}
	created := func(id string) int { return s.index[id].card.CreatedEpisode }
	sort.Slice(ids, func(i, j int) bool {
		if created(ids[i]) != created(ids[j]) {
			return created(ids[i]) < created(ids[j])
		}
		return ids[i] < ids[j]
	})
	s.mu.Unlock()
	out := make([]clinic.Card, 0, len(ids))
	for _, id := range ids {
		c, err := s.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Evict soft-deletes cards at an episode.
func (s *Store) Evict(ctx context.Context, ids []string, episode int) error {
	return s.update(ctx, "evict", ids, `UPDATE cards SET evicted_episode=? WHERE id=? AND evicted_episode=0`, episode,
		func(c *clinic.Card) {
			if c.EvictedEpisode == 0 {
				c.EvictedEpisode = episode
			}
		})
}

// MarkRetrieved counts a retrieval once per card per episode.
func (s *Store) MarkRetrieved(ctx context.Context, ids []string, episode int) error {
	return s.update(ctx, "mark retrieved", ids, `UPDATE cards SET retrievals=retrievals+1, last_retrieved=?1 WHERE id=?2 AND last_retrieved<?1`, episode,
		func(c *clinic.Card) {
			if c.LastRetrieved < episode {
				c.Retrievals++
				c.LastRetrieved = episode
			}
		})
}

func (s *Store) update(ctx context.Context, op string, ids []string, stmt string, episode int, apply func(*clinic.Card)) error {
	if len(ids) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fresh(ctx); err != nil {
		return fmt.Errorf("memory/local: %s: %w", op, err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("memory/local: %s: %w", op, err)
	}
	defer tx.Rollback()
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, stmt, episode, id); err != nil {
			return fmt.Errorf("memory/local: %s %s: %w", op, id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("memory/local: %s: %w", op, err)
	}
	for _, id := range ids {
		if e, ok := s.index[id]; ok {
			apply(&e.card)
		}
	}
	return nil
}

// Stats summarises the selected cards.
func (s *Store) Stats(ctx context.Context, f memory.Filter) (memory.Stats, error) {
	return memory.StatsOf(ctx, s, f, s.emb)
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }
