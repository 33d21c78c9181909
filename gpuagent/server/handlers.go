package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/wire"
)

// buffers are request bodies and responses, reused across requests.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// read decodes r's body into v, refusing more than wire.MaxBody bytes.
func read(w http.ResponseWriter, r *http.Request, v any) *wire.Error {
	buf := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(buf)
	buf.Reset()
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, wire.MaxBody+1)); err != nil {
		return wire.Errorf(wire.CodeTooLarge, "body: %v", err)
	}
	return wire.Unmarshal(buf.Bytes(), v)
}

func reply(w http.ResponseWriter, status int, v any) {
	buf := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(buf)
	buf.Reset()
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		status, v = http.StatusInternalServerError, wire.Errorf(wire.CodeInternal, "encoding: %v", err)
		buf.Reset()
		json.NewEncoder(buf).Encode(v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func fail(w http.ResponseWriter, err *wire.Error) { reply(w, err.Status(), err) }

// call adapts one API call to a handler: decode the body into a Req,
// call f with the request's connection, reply with its answer or error.
func call[Req any](f func(conn agent.Conn, req *Req) (any, *wire.Error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req Req
		if err := read(w, r, &req); err != nil {
			fail(w, err)
			return
		}
		res, err := f(connOf(r), &req)
		if err != nil {
			fail(w, err)
			return
		}
		reply(w, http.StatusOK, res)
	}
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

func (s *Server) report(w http.ResponseWriter, r *http.Request) {
	reply(w, http.StatusOK, s.a.Report())
}

func (s *Server) stats(w http.ResponseWriter, r *http.Request) {
	reply(w, http.StatusOK, s.a.Stats())
}
