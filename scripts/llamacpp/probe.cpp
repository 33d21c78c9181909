// probe loads a GGUF model with libllama, creates one context per
// configuration given on the command line, and prints, as one JSON line per
// configuration, what llama.cpp itself allocated (llama_get_memory_breakdown,
// src/llama-ext.h: model, context and compute bytes per buffer type) and
// what the device reports free (cudaMemGetInfo through ggml_backend_dev_memory)
// before the context, after it is made, and after one decode of n_ubatch
// tokens. libllama's own log goes to LOGDIR/load.log for the model load and
// LOGDIR/<config>.log for each context, so the logs are real test data.
//
// usage: probe MODEL.gguf LOGDIR NGL CONFIG...
//   CONFIG is c,np,kvu,ctk,ctv,fa,ub,swafull (fa 1 on, 0 off).
#include "llama.h"
#include "llama-ext.h"
#include "ggml-backend.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static FILE * g_log = nullptr;

static void log_cb(ggml_log_level level, const char * text, void *) {
    if (level == GGML_LOG_LEVEL_DEBUG) return;
    if (g_log) { fputs(text, g_log); fflush(g_log); }
}

static void open_log(const std::string & path) {
    if (g_log) fclose(g_log);
    g_log = fopen(path.c_str(), "w");
}

static ggml_type kv_type(const std::string & s) {
    if (s == "q8_0") return GGML_TYPE_Q8_0;
    if (s == "q4_0") return GGML_TYPE_Q4_0;
    if (s == "bf16") return GGML_TYPE_BF16;
    return GGML_TYPE_F16;
}

static long long used_bytes(ggml_backend_dev_t dev) {
    size_t free = 0, total = 0;
    ggml_backend_dev_memory(dev, &free, &total);
    return (long long) total - (long long) free;
}

int main(int argc, char ** argv) {
    if (argc < 5) { fprintf(stderr, "usage: probe MODEL LOGDIR NGL CONFIG...\n"); return 2; }
    std::string logdir = argv[2];
    llama_log_set(log_cb, nullptr);
    open_log(logdir + "/load.log");
    llama_backend_init();
    ggml_backend_dev_t gpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_GPU);
    if (!gpu) { fprintf(stderr, "no GPU device\n"); return 1; }
    size_t free0 = 0, total = 0;
    ggml_backend_dev_memory(gpu, &free0, &total);
    long long used_init = (long long) total - (long long) free0;

    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = atoi(argv[3]);
    llama_model * model = llama_model_load_from_file(argv[1], mp);
    if (!model) { fprintf(stderr, "load failed\n"); return 1; }
    long long used_model = used_bytes(gpu);
    printf("{\"model\":\"%s\",\"ngl\":%d,\"total\":%zu,\"used_init\":%lld,\"used_after_load\":%lld,\"model_size\":%llu}\n",
           argv[1], mp.n_gpu_layers, total, used_init, used_model, (unsigned long long) llama_model_size(model));
    fflush(stdout);

    for (int i = 4; i < argc; i++) {
        char ctk[16], ctv[16];
        int c, np, kvu, fa, ub, swafull;
        if (sscanf(argv[i], "%d,%d,%d,%15[^,],%15[^,],%d,%d,%d", &c, &np, &kvu, ctk, ctv, &fa, &ub, &swafull) != 8) {
            fprintf(stderr, "bad config %s\n", argv[i]);
            return 2;
        }
        std::string name = argv[i];
        for (auto & ch : name) if (ch == ',') ch = '_';
        open_log(logdir + "/" + name + ".log");
        llama_context_params cp = llama_context_default_params();
        cp.n_ctx = c; cp.n_seq_max = np; cp.kv_unified = kvu != 0;
        cp.type_k = kv_type(ctk); cp.type_v = kv_type(ctv);
        cp.flash_attn_type = fa ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
        cp.n_batch = 2048; cp.n_ubatch = ub; cp.swa_full = swafull != 0;
        cp.n_threads = 8; cp.n_threads_batch = 8;
        long long before = used_bytes(gpu);
        llama_context * ctx = llama_init_from_model(model, cp);
        if (!ctx) {
            printf("{\"config\":\"%s\",\"error\":\"context failed\"}\n", argv[i]);
            fflush(stdout);
            continue;
        }
        long long after_ctx = used_bytes(gpu);
        printf("{\"config\":\"%s\",\"n_ctx\":%u,\"n_ctx_seq\":%u,\"used_before\":%lld,\"used_after_ctx\":%lld,\"buffers\":[",
               argv[i], llama_n_ctx(ctx), llama_n_ctx_seq(ctx), before, after_ctx);
        bool first = true;
        for (const auto & [buft, mb] : llama_get_memory_breakdown(ctx)) {
            printf("%s{\"buft\":\"%s\",\"host\":%s,\"model\":%zu,\"context\":%zu,\"compute\":%zu}", first ? "" : ",",
                   ggml_backend_buft_name(buft), ggml_backend_buft_is_host(buft) ? "true" : "false", mb.model, mb.context, mb.compute);
            first = false;
        }
        std::vector<llama_token> toks(ub);
        for (int t = 0; t < ub; t++) toks[t] = 1 + t;
        int rc = llama_decode(ctx, llama_batch_get_one(toks.data(), ub));
        long long after_decode = used_bytes(gpu);
        llama_free(ctx);
        long long after_free = used_bytes(gpu);
        printf("],\"decode_rc\":%d,\"used_after_decode\":%lld,\"used_after_free\":%lld}\n", rc, after_decode, after_free);
        fflush(stdout);
    }
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
