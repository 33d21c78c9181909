package web

// This file serves the community calibrations: each group's aggregate,
// computed from its accepted uploads and cached in the store under the
// group's version (which the store's triggers bump with every insert and
// delete), and in memory under the versions of every group, so a request
// rescans nothing that has not changed.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/web/store"
)

// communityGroup is one group as GET /api/community lists it, and the
// document cached in the store.
type communityGroup struct {
	Group    string `json:"group"`
	Accepted int64  `json:"accepted"`
	Held     int64  `json:"held"`
	// Status is "listed" for a group the calculator plans on, "pending"
	// while its Summary.Pending says why not.
	Status  string            `json:"status"`
	Rules   int               `json:"rules"` // community.Rules, when it was computed
	Summary community.Summary `json:"summary"`
	// Calibration is the group's community calibration, absent while the
	// group has no accepted upload.
	Calibration *planner.Calibration `json:"calibration,omitempty"`
}

// communityCache holds the groups last computed and the versions they were
// computed at. Readers take mu only to copy the slice out; a refresh runs
// under refresh, one at a time, and swaps its result in under mu, so an
// upload never waits for a group being re-read.
type communityCache struct {
	mu     sync.Mutex
	stamp  string
	groups []communityGroup
	// began is when the refresh that computed groups began reading the
	// store, fetched when it ended.
	began, fetched time.Time
	// byKey holds each group's entry and the version it was computed at.
	byKey   map[string]versioned
	refresh sync.Mutex
	// refreshing is set while a background refresh runs; took is how long
	// the last one took, its rests left out.
	refreshing atomic.Bool
	took       time.Duration
	// waiting counts the requests waiting for a refresh, which a paced
	// refresh does not make wait (pace.go).
	waiting atomic.Int32
	// listed is the listing of listedOf, the groups it was made from.
	listed   *community.Listing
	listedOf []communityGroup
}

type versioned struct {
	version int64
	group   communityGroup
}

// heldStaleness is how old the groups may be when an upload is compared
// with its group: the comparison need not see the uploads of the last
// second, and re-reading a busy group for every upload would not scale.
const heldStaleness = time.Second

// community returns every group with its aggregate as the store held them
// when the call was made, or later. With maxAge > 0, groups fetched less
// than maxAge ago are returned as they are.
func (a *app) community(ctx context.Context, maxAge time.Duration) ([]communityGroup, error) {
	cc := &a.comm
	called := time.Now()
	if gs, ok := cc.fresh(maxAge, called); ok {
		return gs, nil
	}
	if pacerOf(ctx) == nil {
		cc.waiting.Add(1)
		defer cc.waiting.Add(-1)
	}
	cc.refresh.Lock()
	defer cc.refresh.Unlock()
	// A refresh that began while this call waited read everything stored
	// before the call: the uploads of a new group, arriving together, share
	// one re-read instead of one each.
	if gs, ok := cc.fresh(maxAge, called); ok {
		return gs, nil
	}
	began := time.Now()
	gs, err := a.deps.Store.Groups(ctx)
	if err != nil {
		return nil, err
	}
	stamp := stampOf(gs)
	cc.mu.Lock()
	same := stamp == cc.stamp && cc.groups != nil
	cc.mu.Unlock()
	if same {
		cc.mu.Lock()
		defer cc.mu.Unlock()
		cc.began, cc.fetched = began, time.Now()
		return cc.groups, nil
	}
	out := make([]communityGroup, 0, len(gs))
	byKey := make(map[string]versioned, len(gs))
	for _, g := range gs {
		cg, ok := cc.byKey[g.Key].group, cc.byKey[g.Key].version == g.Version && cc.byKey[g.Key].group.Group != ""
		if !ok {
			if cg, err = a.aggregate(ctx, g); err != nil {
				return nil, err
			}
		}
		out, byKey[g.Key] = append(out, cg), versioned{g.Version, cg}
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.stamp, cc.groups, cc.byKey, cc.began, cc.fetched = stamp, out, byKey, began, time.Now()
	return out, nil
}

// fresh returns the groups held when they are younger than maxAge, or were
// read from the store after called.
func (cc *communityCache) fresh(maxAge time.Duration, called time.Time) ([]communityGroup, bool) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	young := maxAge > 0 && time.Since(cc.fetched) < maxAge
	return cc.groups, cc.groups != nil && (young || cc.began.After(called))
}

func stampOf(gs []store.Group) string {
	var b strings.Builder
	for _, g := range gs {
		b.WriteString(g.Key + "@" + strconv.FormatInt(g.Version, 10) + ";")
	}
	return b.String()
}

// aggregate returns g's aggregate: the one cached in the store when it is
// current, else computed from the group's accepted uploads and cached.
func (a *app) aggregate(ctx context.Context, g store.Group) (communityGroup, error) {
	var cg communityGroup
	if g.Aggregate != nil && g.AggregateVersion == g.Version && json.Unmarshal(g.Aggregate, &cg) == nil && cg.Rules == community.Rules {
		cg.Accepted, cg.Held = g.Accepted, g.Held
		return cg, nil
	}
	members, err := a.members(ctx, g.Key)
	if err != nil {
		return cg, err
	}
	cg = communityGroup{Group: g.Key, Accepted: g.Accepted, Held: g.Held, Rules: community.Rules,
		Summary: community.Summarize(g.Key, members)}
	if cg.Calibration, err = a.communityCalibration(ctx, &cg.Summary, members); err != nil {
		return cg, err
	}
	cg.Status = "pending"
	if (&community.Group{Summary: &cg.Summary, Calibration: cg.Calibration}).Listed() {
		cg.Status = "listed"
	}
	doc, _ := json.Marshal(cg) // a communityGroup always marshals
	return cg, a.deps.Store.PutAggregate(ctx, g.Key, g.Version, doc)
}

// members returns the group's accepted uploads; a paced refresh reads them
// a page at a time and rests after each.
func (a *app) members(ctx context.Context, group string) ([]community.Member, error) {
	var out []community.Member
	p := pacerOf(ctx)
	q := store.Query{Group: group, Status: store.StatusAccepted, Brief: true, Limit: store.MaxLimit}
	if p != nil {
		q.Limit = pacedPage
	}
	for {
		t0 := time.Now()
		page, err := a.deps.Store.Uploads(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, u := range page {
			out = append(out, community.Member{ID: u.ID, Client: u.Client, Figures: u.Figures})
		}
		if len(page) < q.Limit {
			return out, nil
		}
		q.After = page[len(page)-1].Seq
		p.rest(ctx, time.Since(t0))
	}
}

// communityCalibration builds the group's calibration, naming the GPU as
// its newest upload that is not an outlier does.
func (a *app) communityCalibration(ctx context.Context, s *community.Summary, members []community.Member) (*planner.Calibration, error) {
	for i := len(members) - 1; i >= 0; i-- {
		if _, out := s.Outliers[members[i].ID]; out {
			continue
		}
		u, err := a.deps.Store.Get(ctx, members[i].ID)
		if err != nil {
			return nil, err
		}
		like, err := calibrations.Parse(u.Document)
		if err != nil {
			continue
		}
		c := s.Calibration(&like, u.Created.Format(time.DateOnly))
		if st := s.Figures[community.FigContext]; st.Median > 0 {
			c.Provenance.Spread = st.MAD / st.Median
		}
		if calibrations.Validate(&c) != nil {
			return nil, nil
		}
		return &c, nil
	}
	return nil, nil
}

// refreshShare bounds the background refresh's share of the time: a
// refresh that took d is not started again until refreshShare × d has
// passed since the last one, so a busy group of 100,000 uploads (which a
// refresh re-reads whole) costs at most a tenth of a core, however fast
// uploads come; the comparison only grows staler.
const refreshShare = 10

// refreshBehind refreshes the groups in the background for summaryOf,
// timing the refresh; the caller has set cc.refreshing.
func (cc *communityCache) refreshBehind(a *app) {
	defer cc.refreshing.Store(false)
	parent, limit, p := context.Background(), 30*time.Second, &pacer{waiting: &cc.waiting}
	if a.deps.Background == nil { // the native server: paced, pace.go
		parent, limit = withPacer(parent, p), refreshShare*limit
	}
	ctx, cancel := context.WithTimeout(parent, limit)
	defer cancel()
	t0 := time.Now()
	a.community(ctx, heldStaleness)
	cc.mu.Lock()
	cc.took = time.Since(t0) - p.slept
	cc.mu.Unlock()
}

// summaryOf returns the aggregate of group for comparing an upload with
// it. An established group (MinGroup uploads or more) is taken from the
// groups in memory, refreshed in the background when they are older than
// heldStaleness, so uploads never wait for a busy group to be re-read; a
// group not established there is read afresh, so its first uploads are
// judged against all of them.
func (a *app) summaryOf(c echo.Context, group string) (community.Summary, bool) {
	cc := &a.comm
	cc.mu.Lock()
	gs, stale := cc.groups, time.Since(cc.fetched) >= max(heldStaleness, refreshShare*cc.took)
	cc.mu.Unlock()
	if s, ok := findGroup(gs, group); ok && s.Count >= community.MinGroup {
		if stale && cc.refreshing.CompareAndSwap(false, true) {
			a.background(func() { cc.refreshBehind(a) })
		}
		return s, true
	}
	gs, err := a.community(c.Request().Context(), 0)
	if err != nil {
		return community.Summary{}, false
	}
	return findGroup(gs, group)
}

// background runs f as Deps.Background says.
func (a *app) background(f func()) {
	if a.deps.Background != nil {
		a.deps.Background(f)
		return
	}
	go f()
}

func findGroup(gs []communityGroup, group string) (community.Summary, bool) {
	for _, g := range gs {
		if g.Group == group {
			return g.Summary, true
		}
	}
	return community.Summary{}, false
}

// communityList answers GET /api/community: the groups with their
// aggregates and calibrations, by key, a page at a time. ?status= is
// listed (the default: the groups the calculator plans on), pending or
// all; ?after=KEY starts after that group; ?limit= is at most maxGroups
// (defaultGroups when absent); ?group=KEY is that group alone, whatever
// its status. A page followed by more carries a Link header to the next,
// so made-up groups never make one answer large.
func (a *app) communityList(c echo.Context) error {
	status, after, one := cmp.Or(c.QueryParam("status"), "listed"), c.QueryParam("after"), c.QueryParam("group")
	limit, err := strconv.Atoi(cmp.Or(c.QueryParam("limit"), strconv.Itoa(defaultGroups)))
	switch {
	case status != "listed" && status != "pending" && status != "all":
		return jsonError(c, http.StatusBadRequest, "status", fmt.Errorf("status %.40q: want listed, pending or all", status))
	case err != nil || limit < 1 || limit > maxGroups:
		return jsonError(c, http.StatusBadRequest, "limit", fmt.Errorf("limit %.40q: want a count from 1 to %d", c.QueryParam("limit"), maxGroups))
	case a.deps.Store == nil:
		return c.JSON(http.StatusOK, []communityGroup{})
	}
	gs, err := a.community(c.Request().Context(), 0)
	if err != nil {
		return jsonError(c, http.StatusServiceUnavailable, "", err)
	}
	if one != "" {
		status, after, limit = "all", "", len(gs)
	}
	var page []communityGroup
	for _, g := range gs {
		switch {
		case g.Group <= after, status != "all" && g.Status != status, one != "" && g.Group != one:
		case len(page) == limit:
			next := "status=" + status + "&after=" + url.QueryEscape(page[len(page)-1].Group) + "&limit=" + strconv.Itoa(limit)
			c.Response().Header().Set("Link", "</api/community?"+next+`>; rel="next"`)
			return c.JSON(http.StatusOK, page)
		default:
			page = append(page, g)
		}
	}
	if page == nil {
		page = []communityGroup{}
	}
	return c.JSON(http.StatusOK, page)
}

// The sizes of a page of groups.
const (
	defaultGroups = 100
	maxGroups     = 500
)

// listing returns the picker and the aliases of the table merged with the
// community groups (community.List), computing them again only when the
// groups changed (community returns the same slice while none did).
func (a *app) listing(ctx context.Context, table []planner.Calibration) (community.Listing, []communityGroup) {
	if a.deps.Store == nil {
		return community.Listing{Calibrations: table}, nil
	}
	gs, err := a.community(ctx, 0)
	if err != nil {
		return community.Listing{Calibrations: table}, nil
	}
	cc := &a.comm
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.listed != nil && sameSlice(cc.listedOf, gs) {
		return *cc.listed, gs
	}
	in := make([]community.Group, len(gs))
	for i := range gs {
		in[i] = community.Group{Summary: &gs[i].Summary, Calibration: gs[i].Calibration}
	}
	l := community.List(table, in)
	cc.listed, cc.listedOf = &l, gs
	return l, gs
}

// sameSlice reports whether a and b are the same slice of groups.
func sameSlice(a, b []communityGroup) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// kindLabel says in the picker where a calibration's figures come from.
func kindLabel(c *planner.Calibration) string {
	if c.Kind() != planner.CalibrationCommunity {
		return c.Kind()
	}
	noun := "uploads"
	if c.Provenance.Runs == 1 {
		noun = "upload"
	}
	return fmt.Sprintf("community: %d %s, spread %.1f %%", c.Provenance.Runs, noun, 100*c.Provenance.Spread)
}
