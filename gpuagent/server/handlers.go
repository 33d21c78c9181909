package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"

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

func (s *Server) openLease(w http.ResponseWriter, r *http.Request) {
	var req wire.OpenLease
	if err := read(w, r, &req); err != nil {
		fail(w, err)
		return
	}
	l, err := s.a.OpenLease(connOf(r), req)
	if err != nil {
		fail(w, err)
		return
	}
	reply(w, http.StatusOK, l)
}

func (s *Server) renew(w http.ResponseWriter, r *http.Request) {
	var req wire.LeaseRef
	if err := read(w, r, &req); err != nil {
		fail(w, err)
		return
	}
	l, err := s.a.Renew(connOf(r), req.Lease)
	if err != nil {
		fail(w, err)
		return
	}
	reply(w, http.StatusOK, l)
}

func (s *Server) closeLease(w http.ResponseWriter, r *http.Request) {
	var req wire.LeaseRef
	if err := read(w, r, &req); err != nil {
		fail(w, err)
		return
	}
	if err := s.a.CloseLease(connOf(r), req.Lease); err != nil {
		fail(w, err)
		return
	}
	reply(w, http.StatusOK, struct{}{})
}

func (s *Server) step(w http.ResponseWriter, r *http.Request) {
	var req wire.Step
	if err := read(w, r, &req); err != nil {
		fail(w, err)
		return
	}
	res, err := s.a.Step(connOf(r), &req, nil)
	if err != nil {
		fail(w, err)
		return
	}
	reply(w, http.StatusOK, res)
}

// admit is one admission; a refusal is answered with the error's status,
// 503 with the block arithmetic for capacity (I6).
func (s *Server) admit(w http.ResponseWriter, r *http.Request) {
	var req wire.AdmitCall
	if err := read(w, r, &req); err != nil {
		fail(w, err)
		return
	}
	res, err := s.a.Admit(connOf(r), req.Lease, &req.Op)
	if err == nil {
		err = res.Error
	}
	if err != nil {
		fail(w, err)
		return
	}
	reply(w, http.StatusOK, res)
}

func (s *Server) report(w http.ResponseWriter, r *http.Request) {
	reply(w, http.StatusOK, s.a.Report())
}

func (s *Server) stats(w http.ResponseWriter, r *http.Request) {
	reply(w, http.StatusOK, s.a.Stats())
}
