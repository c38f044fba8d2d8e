// Package qdranttest is an in-process Qdrant for tests: a gRPC server on a
// loopback port built on the client module's generated server types. It
// implements the subset of the API clinevo uses (collections, upsert, get,
// scroll, query, count, set-payload, delete, field indexes) with real filter
// semantics: must, should, must_not, nested filters, keyword and integer
// matches, ranges and has-id.
package qdranttest

import (
	"context"
	"math"
	"net"
	"sort"
	"sync"
	"testing"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

type point struct {
	id      string
	vec     []float32
	payload map[string]*qc.Value
}

type collection struct {
	size     uint64
	metadata map[string]*qc.Value
	points   map[string]*point
}

// Server is the fake Qdrant.
type Server struct {
	qc.UnimplementedCollectionsServer
	qc.UnimplementedQdrantServer
	mu   sync.Mutex
	cols map[string]*collection
	Host string
	Port int
	// BeforeCreate, when set, runs at the start of every create-collection
	// request: a test makes another client win a race with it.
	BeforeCreate func(name string)
}

// points serves the Points service (its Get differs from the Collections' Get).
type points struct {
	qc.UnimplementedPointsServer
	*Server
}

// Get returns points by ID.
func (s points) Get(_ context.Context, r *qc.GetPoints) (*qc.GetResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.col(r.CollectionName)
	if err != nil {
		return nil, err
	}
	out := &qc.GetResponse{}
	for _, id := range r.Ids {
		if p, ok := c.points[id.GetUuid()]; ok {
			out.Result = append(out.Result, retrieved(p))
		}
	}
	return out, nil
}

// Start serves on 127.0.0.1 until the test ends.
func Start(t testing.TB) *Server {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{cols: map[string]*collection{}, Host: "127.0.0.1", Port: l.Addr().(*net.TCPAddr).Port}
	g := grpc.NewServer()
	qc.RegisterCollectionsServer(g, s)
	qc.RegisterPointsServer(g, points{Server: s})
	qc.RegisterQdrantServer(g, s)
	go g.Serve(l)
	t.Cleanup(g.Stop)
	return s
}

func (s *Server) col(name string) (*collection, error) {
	c, ok := s.cols[name]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "Collection `%s` doesn't exist!", name)
	}
	return c, nil
}

// HealthCheck answers like Qdrant.
func (s *Server) HealthCheck(context.Context, *qc.HealthCheckRequest) (*qc.HealthCheckReply, error) {
	return &qc.HealthCheckReply{Title: "qdranttest", Version: "1.17.0"}, nil
}

// CollectionExists reports a collection.
func (s *Server) CollectionExists(_ context.Context, r *qc.CollectionExistsRequest) (*qc.CollectionExistsResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.cols[r.CollectionName]
	return &qc.CollectionExistsResponse{Result: &qc.CollectionExists{Exists: ok}}, nil
}

// Create creates a collection of dense cosine vectors.
func (s *Server) Create(_ context.Context, r *qc.CreateCollection) (*qc.CollectionOperationResponse, error) {
	if s.BeforeCreate != nil {
		s.BeforeCreate(r.CollectionName)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.cols[r.CollectionName]; ok {
		return nil, status.Errorf(codes.AlreadyExists, "Collection `%s` already exists!", r.CollectionName)
	}
	size := r.GetVectorsConfig().GetParams().GetSize()
	if size == 0 {
		return nil, status.Error(codes.InvalidArgument, "vector size must be positive")
	}
	s.cols[r.CollectionName] = &collection{size: size, metadata: r.Metadata, points: map[string]*point{}}
	return &qc.CollectionOperationResponse{Result: true}, nil
}

// Get describes a collection.
func (s *Server) Get(_ context.Context, r *qc.GetCollectionInfoRequest) (*qc.GetCollectionInfoResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.col(r.CollectionName)
	if err != nil {
		return nil, err
	}
	n := uint64(len(c.points))
	return &qc.GetCollectionInfoResponse{Result: &qc.CollectionInfo{Status: qc.CollectionStatus_Green, PointsCount: &n,
		Config: &qc.CollectionConfig{Params: &qc.CollectionParams{VectorsConfig: qc.NewVectorsConfig(&qc.VectorParams{Size: c.size, Distance: qc.Distance_Cosine})},
			Metadata: c.metadata}}}, nil
}

// List lists collections.
func (s *Server) List(context.Context, *qc.ListCollectionsRequest) (*qc.ListCollectionsResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*qc.CollectionDescription
	for n := range s.cols {
		out = append(out, &qc.CollectionDescription{Name: n})
	}
	return &qc.ListCollectionsResponse{Collections: out}, nil
}

// CreateFieldIndex accepts the index (filters work without it here).
func (s points) CreateFieldIndex(_ context.Context, r *qc.CreateFieldIndexCollection) (*qc.PointsOperationResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.col(r.CollectionName); err != nil {
		return nil, err
	}
	return done(), nil
}

func done() *qc.PointsOperationResponse {
	return &qc.PointsOperationResponse{Result: &qc.UpdateResult{Status: qc.UpdateStatus_Completed}}
}

func vectorOf(v *qc.Vectors) []float32 {
	vec := v.GetVector()
	if d := vec.GetDense().GetData(); len(d) > 0 {
		return d
	}
	return vec.GetData()
}

// Upsert inserts or replaces points.
func (s points) Upsert(_ context.Context, r *qc.UpsertPoints) (*qc.PointsOperationResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.col(r.CollectionName)
	if err != nil {
		return nil, err
	}
	for _, p := range r.Points {
		vec := vectorOf(p.Vectors)
		if uint64(len(vec)) != c.size {
			return nil, status.Errorf(codes.InvalidArgument, "Wrong input: Vector dimension error: expected dim: %d, got %d", c.size, len(vec))
		}
		c.points[p.Id.GetUuid()] = &point{id: p.Id.GetUuid(), vec: vec, payload: p.Payload}
	}
	return done(), nil
}

func retrieved(p *point) *qc.RetrievedPoint {
	return &qc.RetrievedPoint{Id: qc.NewID(p.id), Payload: p.payload}
}

// Scroll pages through matching points in ID order.
func (s points) Scroll(_ context.Context, r *qc.ScrollPoints) (*qc.ScrollResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.col(r.CollectionName)
	if err != nil {
		return nil, err
	}
	ids := c.sorted(r.Filter)
	start := 0
	if r.Offset != nil {
		start = sort.SearchStrings(ids, r.Offset.GetUuid())
	}
	limit := 10
	if r.Limit != nil {
		limit = int(*r.Limit)
	}
	out := &qc.ScrollResponse{}
	for i := start; i < len(ids) && len(out.Result) < limit; i++ {
		out.Result = append(out.Result, retrieved(c.points[ids[i]]))
		if len(out.Result) == limit && i+1 < len(ids) {
			out.NextPageOffset = qc.NewID(ids[i+1])
		}
	}
	return out, nil
}

func (c *collection) sorted(f *qc.Filter) []string {
	var ids []string
	for id, p := range c.points {
		if matches(p, f) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// Count counts matching points.
func (s points) Count(_ context.Context, r *qc.CountPoints) (*qc.CountResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.col(r.CollectionName)
	if err != nil {
		return nil, err
	}
	return &qc.CountResponse{Result: &qc.CountResult{Count: uint64(len(c.sorted(r.Filter)))}}, nil
}

// Query returns the nearest matching points by cosine similarity.
func (s points) Query(_ context.Context, r *qc.QueryPoints) (*qc.QueryResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.col(r.CollectionName)
	if err != nil {
		return nil, err
	}
	q := r.GetQuery().GetNearest().GetDense().GetData()
	if uint64(len(q)) != c.size {
		return nil, status.Errorf(codes.InvalidArgument, "Wrong input: Vector dimension error: expected dim: %d, got %d", c.size, len(q))
	}
	var out []*qc.ScoredPoint
	for _, id := range c.sorted(r.Filter) {
		p := c.points[id]
		out = append(out, &qc.ScoredPoint{Id: qc.NewID(id), Payload: p.payload, Score: cosine(q, p.vec)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	limit := 10
	if r.Limit != nil {
		limit = int(*r.Limit)
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return &qc.QueryResponse{Result: out}, nil
}

func cosine(a, b []float32) float32 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return float32(dot / math.Sqrt(na*nb))
}

// SetPayload merges payload fields into selected points.
func (s points) SetPayload(_ context.Context, r *qc.SetPayloadPoints) (*qc.PointsOperationResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.col(r.CollectionName)
	if err != nil {
		return nil, err
	}
	for _, id := range c.selected(r.PointsSelector) {
		for k, v := range r.Payload {
			c.points[id].payload[k] = v
		}
	}
	return done(), nil
}

// Delete deletes selected points.
func (s points) Delete(_ context.Context, r *qc.DeletePoints) (*qc.PointsOperationResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.col(r.CollectionName)
	if err != nil {
		return nil, err
	}
	for _, id := range c.selected(r.Points) {
		delete(c.points, id)
	}
	return done(), nil
}

func (c *collection) selected(sel *qc.PointsSelector) []string {
	if f := sel.GetFilter(); f != nil {
		return c.sorted(f)
	}
	var ids []string
	for _, id := range sel.GetPoints().GetIds() {
		if _, ok := c.points[id.GetUuid()]; ok {
			ids = append(ids, id.GetUuid())
		}
	}
	return ids
}

// matches applies Qdrant's filter semantics: every must, at least one should
// (when there are any), no must_not.
func matches(p *point, f *qc.Filter) bool {
	if f == nil {
		return true
	}
	for _, c := range f.Must {
		if !condition(p, c) {
			return false
		}
	}
	for _, c := range f.MustNot {
		if condition(p, c) {
			return false
		}
	}
	if len(f.Should) > 0 {
		for _, c := range f.Should {
			if condition(p, c) {
				return true
			}
		}
		return false
	}
	return true
}

func condition(p *point, c *qc.Condition) bool {
	if f := c.GetFilter(); f != nil {
		return matches(p, f)
	}
	if h := c.GetHasId(); h != nil {
		for _, id := range h.HasId {
			if id.GetUuid() == p.id {
				return true
			}
		}
		return false
	}
	fc := c.GetField()
	if fc == nil {
		return false
	}
	v, ok := p.payload[fc.Key]
	if m := fc.GetMatch(); m != nil {
		if !ok {
			return false
		}
		switch mv := m.MatchValue.(type) {
		case *qc.Match_Keyword:
			return v.GetStringValue() == mv.Keyword
		case *qc.Match_Integer:
			return v.GetKind() != nil && isInt(v) && v.GetIntegerValue() == mv.Integer
		case *qc.Match_Keywords:
			for _, k := range mv.Keywords.Strings {
				if v.GetStringValue() == k {
					return true
				}
			}
			return false
		case *qc.Match_Integers:
			for _, k := range mv.Integers.Integers {
				if isInt(v) && v.GetIntegerValue() == k {
					return true
				}
			}
			return false
		}
		return false
	}
	if r := fc.GetRange(); r != nil {
		if !ok {
			return false
		}
		x := v.GetDoubleValue()
		if isInt(v) {
			x = float64(v.GetIntegerValue())
		}
		return (r.Lt == nil || x < *r.Lt) && (r.Lte == nil || x <= *r.Lte) && (r.Gt == nil || x > *r.Gt) && (r.Gte == nil || x >= *r.Gte)
	}
	return false
}

func isInt(v *qc.Value) bool { _, ok := v.GetKind().(*qc.Value_IntegerValue); return ok }
