/* The waits inside graphs, as a teardown releases them (memops.c). A wait
 * queued while a stream is captured becomes a node of the graph, which
 * each launch runs again: the captures note their waits here, per graph,
 * and a launch notes its graph's waits in the launching stream's log, so
 * that cancel_waits releases a model stuck on one as it releases a wait
 * of the stream's own.
 *
 * While a graph is captured or put together its waits are kept in a table
 * keyed by the graph; a conditional node's bodies are entries that point
 * at their root graph, so a wait captured into a body counts for the
 * graph the body belongs to. Only graphs of ours have entries (a capture
 * the application made on a stream of ours notes nothing). The finished
 * graph takes its list out of the table (backend_graph.waits), and updates
 * of its nodes keep the list true: each wait carries the node it is.
 *
 * A loop waits on nothing, yet may never end: each graph whose conditions
 * are set by our kernels (builtin_kernels.cu) has a stop word that they
 * read, noted among its waits, which a teardown sets as it releases them.
 * The word is mapped host memory, so that nothing on the device has to
 * run for it to be set. */
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda.h"
#include "util/log.h"

typedef struct graph_entry {
    cudaGraph_t graph;
    cudaGraph_t root; /* the graph itself, or the one a body belongs to */
    graph_waits waits;
    uint32_t *stop; /* a root's stop word, once a condition reads it */
} graph_entry;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static graph_entry *table;
static size_t table_count, table_cap;

static graph_entry *entry_find(cudaGraph_t graph)
{
    for (size_t i = 0; i < table_count; i++)
        if (table[i].graph == graph)
            return &table[i];
    return NULL;
}

/* graph's entry, made (a root) when it has none; NULL: out of memory. */
static graph_entry *entry_get(cudaGraph_t graph)
{
    graph_entry *e = entry_find(graph);
    if (e)
        return e;
    if (table_count == table_cap) {
        size_t cap = table_cap ? 2 * table_cap : 8;
        graph_entry *grown = realloc(table, cap * sizeof *grown);
        if (!grown)
            return NULL;
        table = grown;
        table_cap = cap;
    }
    e = &table[table_count++];
    *e = (graph_entry){.graph = graph, .root = graph};
    return e;
}

/* Removes root's entry and its bodies'; root's list goes to *out (or is
 * freed when out is NULL). */
static void entries_remove(cudaGraph_t root, graph_waits *out)
{
    for (size_t i = 0; i < table_count;) {
        graph_entry *e = &table[i];
        if (e->root != root && e->graph != root) {
            i++;
            continue;
        }
        if (out && e->graph == root)
            *out = e->waits;
        else
            free(e->waits.at);
        *e = table[--table_count];
    }
}

static bool waits_append(graph_waits *gw, const graph_wait *w, size_t n)
{
    if (gw->count + n > gw->cap) {
        size_t cap = gw->cap ? gw->cap : 4;
        while (cap < gw->count + n)
            cap *= 2;
        graph_wait *grown = realloc(gw->at, cap * sizeof *grown);
        if (!grown)
            return false;
        gw->at = grown;
        gw->cap = cap;
    }
    memcpy(gw->at + gw->count, w, n * sizeof *w);
    gw->count += n;
    return true;
}

static void note_failed(void)
{
    ACL_LOG(LOG_ERROR, "out of memory: a teardown cannot release a wait inside a model");
}

/* A stream joins a CUDA capture only when one begins on it or when it
 * waits for an event recorded in one. Until the process may have either,
 * the capture query of every noted wait (cudaStreamGetCaptureInfo, about
 * a tenth of an aclrtValueWait on an H100's host) is skipped. Sticky. */
static atomic_bool capture_possible;

void cuda_capture_possible(void)
{
    if (!atomic_load_explicit(&capture_possible, memory_order_relaxed))
        atomic_store_explicit(&capture_possible, true, memory_order_seq_cst);
}

bool cuda_capture_may_hold(const backend_stream *s)
{
    return s->adopted || atomic_load_explicit(&s->exported, memory_order_relaxed) ||
           atomic_load_explicit(&capture_possible, memory_order_seq_cst);
}

bool cuda_capture_wait_note(cudaStream_t s, const pending_wait *w)
{
    enum cudaStreamCaptureStatus status;
    cudaGraph_t graph = NULL;
    const cudaGraphNode_t *deps = NULL;
    size_t count = 0;
    if (cudaStreamGetCaptureInfo(s, &status, NULL, &graph, &deps, NULL, &count) != cudaSuccess) {
        (void)cudaGetLastError();
        return true; /* not known: not noted */
    }
    if (status == cudaStreamCaptureStatusNone)
        return false;
    if (status != cudaStreamCaptureStatusActive || !graph)
        return true;
    graph_wait gw = {.w = *w, .node = count && deps ? deps[count - 1] : NULL};
    pthread_mutex_lock(&table_lock);
    graph_entry *e = entry_find(graph);
    graph_entry *root = e ? entry_get(e->root) : NULL;
    if (e && (!root || !waits_append(&root->waits, &gw, 1)))
        note_failed();
    pthread_mutex_unlock(&table_lock);
    return true;
}

void cuda_graph_waits_begin(cudaGraph_t graph)
{
    pthread_mutex_lock(&table_lock);
    entries_remove(graph, NULL); /* a graph of that address that is gone */
    if (!entry_get(graph))
        note_failed();
    pthread_mutex_unlock(&table_lock);
}

void cuda_graph_waits_body(cudaGraph_t body, cudaGraph_t parent)
{
    pthread_mutex_lock(&table_lock);
    entries_remove(body, NULL); /* a graph of that address that is gone */
    graph_entry *p = entry_get(parent);
    cudaGraph_t root = p ? p->root : NULL;
    graph_entry *e = root ? entry_get(body) : NULL;
    if (e)
        e->root = root;
    else
        note_failed();
    pthread_mutex_unlock(&table_lock);
}

void cuda_graph_waits_take(cudaGraph_t graph, graph_waits *out)
{
    *out = (graph_waits){0};
    pthread_mutex_lock(&table_lock);
    entries_remove(graph, out);
    pthread_mutex_unlock(&table_lock);
}

/* Adds from's waits, their nodes forgotten, to graph's root; a graph
 * without an entry gets one when create, else nothing. */
static void waits_add(cudaGraph_t graph, const graph_waits *from, bool create)
{
    if (!from->count)
        return;
    pthread_mutex_lock(&table_lock);
    graph_entry *e = create ? entry_get(graph) : entry_find(graph);
    graph_entry *root = e ? entry_get(e->root) : NULL;
    size_t at = root ? root->waits.count : 0;
    if (root && waits_append(&root->waits, from->at, from->count))
        for (size_t i = at; i < root->waits.count; i++)
            root->waits.at[i].node = NULL;
    else if (e || create)
        note_failed();
    pthread_mutex_unlock(&table_lock);
}

void cuda_graph_waits_add(cudaGraph_t graph, const graph_waits *from)
{
    waits_add(graph, from, true);
}

void cuda_graph_waits_append(graph_waits *to, const graph_waits *from)
{
    if (from->count && !waits_append(to, from->at, from->count))
        note_failed();
}

void cuda_graph_waits_free(graph_waits *gw)
{
    free(gw->at);
    *gw = (graph_waits){0};
}

void cuda_graph_waits_set_node(graph_waits *gw, cudaGraphNode_t node, const graph_waits *from,
                               cudaGraphNode_t from_node)
{
    /* A node is one wait at most (a notify's wait and reset is one). */
    size_t at = 0;
    while (at < gw->count && gw->at[at].node != node)
        at++;
    const graph_wait *now = NULL;
    for (size_t i = 0; from && i < from->count && !now; i++)
        if (from->at[i].node == from_node)
            now = &from->at[i];
    if (at < gw->count && now) {
        bool disabled = gw->at[at].disabled;
        gw->at[at] = *now;
        gw->at[at].node = node;
        gw->at[at].disabled = disabled;
    } else if (at < gw->count) {
        memmove(gw->at + at, gw->at + at + 1, (gw->count - at - 1) * sizeof *gw->at);
        gw->count--;
    } else if (now) {
        graph_wait added = *now;
        added.node = node;
        if (!waits_append(gw, &added, 1))
            note_failed();
    }
}

void cuda_graph_waits_enable(graph_waits *gw, cudaGraphNode_t node, bool enable)
{
    for (size_t i = 0; i < gw->count; i++)
        if (gw->at[i].node == node)
            gw->at[i].disabled = !enable;
}

/* The word goes back to the pool once the graph, every graph made from it
 * and their runs are gone. */
static void stop_word_free(void *word)
{
    cuda_host_word_put(word);
}

static uint32_t *stop_word_new(cudaGraph_t graph, uint64_t *serial)
{
    uint32_t *w = cuda_host_word_get(serial);
    if (!w)
        return NULL;
    void *on_device = NULL;
    cudaUserObject_t object;
    if (cudaHostGetDevicePointer(&on_device, w, 0) != cudaSuccess || on_device != w ||
        cudaUserObjectCreate(&object, w, stop_word_free, 1, cudaUserObjectNoDestructorSync) !=
            cudaSuccess) {
        (void)cudaGetLastError();
        cuda_host_word_put(w);
        return NULL;
    }
    if (cudaGraphRetainUserObject(graph, object, 1, cudaGraphUserObjectMove) != cudaSuccess) {
        (void)cudaGetLastError();
        (void)cudaUserObjectRelease(object, 1); /* gives the word back */
        return NULL;
    }
    return w;
}

cudaGraph_t cuda_capture_graph(cudaStream_t s)
{
    enum cudaStreamCaptureStatus status;
    cudaGraph_t graph = NULL;
    if (cudaStreamGetCaptureInfo(s, &status, NULL, &graph, NULL, NULL, NULL) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return status == cudaStreamCaptureStatusActive ? graph : NULL;
}

const uint32_t *cuda_capture_stop_word(cudaStream_t s)
{
    cudaGraph_t graph = cuda_capture_graph(s);
    if (!graph)
        return NULL;
    pthread_mutex_lock(&table_lock);
    /* A model being put together has an entry from its first wait or
     * condition on. */
    graph_entry *e = entry_get(graph);
    graph_entry *root = e ? entry_get(e->root) : NULL;
    uint64_t serial = 0;
    if (root && !root->stop && (root->stop = stop_word_new(root->graph, &serial))) {
        graph_wait gw = {
            .w = {.addr = (uint64_t)(uintptr_t)root->stop, .value = serial, .kind = WAIT_STOP32}};
        if (!waits_append(&root->waits, &gw, 1))
            note_failed();
    }
    const uint32_t *stop = root ? root->stop : NULL;
    pthread_mutex_unlock(&table_lock);
    if (!stop)
        ACL_LOG(LOG_ERROR, "out of memory: a teardown cannot end a loop of this model");
    return stop;
}

bool cuda_graph_waits_captured(cudaStream_t s, const graph_waits *gw)
{
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    cudaGraph_t graph = NULL;
    if (cudaStreamGetCaptureInfo(s, &status, NULL, &graph, NULL, NULL, NULL) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    if (status == cudaStreamCaptureStatusActive && graph)
        waits_add(graph, gw, false); /* the launch is a clone of ours there */
    return status != cudaStreamCaptureStatusNone;
}
