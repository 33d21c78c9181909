package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

// An endpoint is one API call, served both as an HTTP route and as a
// frame call.
type endpoint struct {
	call         wire.Call
	method, path string
	do           func(conn agent.Conn, body []byte) (any, *wire.Error)
}

func (s *Server) endpoints() []endpoint {
	return []endpoint{
		{wire.CallOpenLease, "POST", "/v1/lease", decodeThen(s.openLease)},
		{wire.CallRenew, "POST", "/v1/lease/renew", decodeThen(s.renew)},
		{wire.CallCloseLease, "POST", "/v1/lease/close", decodeThen(s.closeLease)},
		{wire.CallStep, "POST", "/v1/step", decodeThen(s.step)},
		{wire.CallAdmit, "POST", "/v1/admit", decodeThen(s.admit)},
		{wire.CallReport, "GET", "/v1/report", func(agent.Conn, []byte) (any, *wire.Error) { return s.a.Report(), nil }},
		{wire.CallStats, "GET", "/v1/stats", func(agent.Conn, []byte) (any, *wire.Error) { return s.a.Stats(), nil }},
	}
}

// decodeThen decodes a body into a Req and calls f with it.
func decodeThen[Req any](f func(conn agent.Conn, req *Req) (any, *wire.Error)) func(agent.Conn, []byte) (any, *wire.Error) {
	return func(conn agent.Conn, body []byte) (any, *wire.Error) {
		var req Req
		if err := wire.Unmarshal(body, &req); err != nil {
			return nil, err
		}
		return f(conn, &req)
	}
}

// buffers are request bodies and responses, reused across requests.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// route serves ep over HTTP.
func (s *Server) route(ep endpoint) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, rerr := s.readBody(http.MaxBytesReader(w, r.Body, wire.MaxBody+1))
		defer putBody(body)
		switch {
		case rerr == errBusy:
			reply(w, s.busy())
			return
		case rerr != nil:
			reply(w, wire.Errorf(wire.CodeTooLarge, "body: %v", rerr))
			return
		}
		res, err := ep.do(connOf(r), body.buf)
		if err != nil {
			reply(w, err)
			return
		}
		reply(w, res)
	}
}

func reply(w http.ResponseWriter, v any) {
	buf := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(buf)
	buf.Reset()
	status := encode(buf, v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// encode appends v's JSON to buf and returns the HTTP status it stands
// for: an *wire.Error's own, 200 otherwise.
func encode(buf *bytes.Buffer, v any) int {
	status := http.StatusOK
	if e, ok := v.(*wire.Error); ok {
		status = e.Status()
	}
	start := buf.Len()
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		buf.Truncate(start)
		e := wire.Errorf(wire.CodeInternal, "encoding: %v", err)
		json.NewEncoder(buf).Encode(e)
		return e.Status()
	}
	return status
}

func (s *Server) openLease(conn agent.Conn, req *wire.OpenLease) (any, *wire.Error) {
	return s.a.OpenLease(conn, *req)
}

func (s *Server) renew(conn agent.Conn, req *wire.LeaseRef) (any, *wire.Error) {
	return s.a.Renew(conn, req.Lease)
}

func (s *Server) closeLease(conn agent.Conn, req *wire.LeaseRef) (any, *wire.Error) {
	return struct{}{}, s.a.CloseLease(conn, req.Lease)
}

func (s *Server) step(conn agent.Conn, req *wire.Step) (any, *wire.Error) {
	return s.a.Step(conn, req, nil)
}

// admit is one admission; a refusal is answered with the error's status,
// 503 with the block arithmetic for capacity (I6).
func (s *Server) admit(conn agent.Conn, req *wire.AdmitCall) (any, *wire.Error) {
	res, err := s.a.Admit(conn, req.Lease, &req.Op)
	if err == nil {
		err = res.Error
	}
	return res, err
}
