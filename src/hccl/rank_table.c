#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hccl/errors.h"
#include "hccl/rank_table.h"

#define PATH_BYTES 96
#define MAX_DEVICE_ID 65535

typedef struct parser {
    const char *api;
    hccl_rank_table *table;
    bool *seen; /* [nranks]: a device named the rank */
    bool needs_super_device_id;
} parser;

static void join_path(char *out, const char *prefix, const char *key, long index)
{
    const char *dot = prefix[0] ? "." : "";
    int n = index >= 0 ? snprintf(out, PATH_BYTES, "%s%s%s[%ld]", prefix, dot, key, index)
                       : snprintf(out, PATH_BYTES, "%s%s%s", prefix, dot, key);
    if (n < 0 || n >= PATH_BYTES)
        out[PATH_BYTES - 1] = '\0'; /* cut: the message still names the path's start */
}

/* *value is the string at obj[key]; NULL when optional and absent. */
static HcclResult get_string(parser *p, json_t *obj, const char *where, const char *key,
                             bool required, const char **value)
{
    char path[PATH_BYTES];
    join_path(path, where, key, -1);
    json_t *item = json_object_get(obj, key);
    *value = NULL;
    if (!item)
        return required ? hccl_raise(p->api, HCCL_E_PARA, "rank table: %s is missing", path)
                        : HCCL_SUCCESS;
    if (!json_is_string(item))
        return hccl_raise(p->api, HCCL_E_PARA,
                          "rank table: %s must be a string (a rank table quotes every value)",
                          path);
    *value = json_string_value(item);
    return HCCL_SUCCESS;
}

static HcclResult get_text(parser *p, json_t *obj, const char *where, const char *key,
                           bool required, char out[HCCL_RANK_TABLE_TEXT])
{
    const char *value;
    HcclResult err = get_string(p, obj, where, key, required, &value);
    out[0] = '\0';
    if (err || !value)
        return err;
    char path[PATH_BYTES];
    join_path(path, where, key, -1);
    /* An optional field left empty is absent (CANN's own tables give
     * "device_ip": "" where the NPU's address is not used). */
    if (value[0] == '\0' && !required)
        return HCCL_SUCCESS;
    if (value[0] == '\0')
        return hccl_raise(p->api, HCCL_E_PARA, "rank table: %s is empty", path);
    if (strlen(value) >= HCCL_RANK_TABLE_TEXT)
        return hccl_raise(p->api, HCCL_E_PARA, "rank table: %s is longer than %d characters", path,
                          HCCL_RANK_TABLE_TEXT - 1);
    memcpy(out, value, strlen(value) + 1);
    return HCCL_SUCCESS;
}

/* A decimal number written as a string, at most max; *present false when
 * optional and absent. */
static HcclResult get_number(parser *p, json_t *obj, const char *where, const char *key,
                             bool required, uint64_t max, uint64_t *number, bool *present)
{
    const char *value;
    HcclResult err = get_string(p, obj, where, key, required, &value);
    *present = value != NULL;
    if (err || !value)
        return err;
    char path[PATH_BYTES];
    join_path(path, where, key, -1);
    char *end;
    errno = 0;
    unsigned long long parsed = strtoull(value, &end, 10);
    if (value[0] < '0' || value[0] > '9' || *end != '\0' || errno || parsed > max)
        return hccl_raise(p->api, HCCL_E_PARA,
                          "rank table: %s is \"%s\", not a whole number from 0 to %llu", path,
                          value, (unsigned long long)max);
    *number = parsed;
    return HCCL_SUCCESS;
}

static HcclResult get_array(parser *p, json_t *obj, const char *where, const char *key,
                            bool required, json_t **array)
{
    char path[PATH_BYTES];
    join_path(path, where, key, -1);
    *array = json_object_get(obj, key);
    if (!*array)
        return required ? hccl_raise(p->api, HCCL_E_PARA, "rank table: %s is missing", path)
                        : HCCL_SUCCESS;
    if (!json_is_array(*array))
        return hccl_raise(p->api, HCCL_E_PARA, "rank table: %s must be a list", path);
    return HCCL_SUCCESS;
}

static HcclResult get_object(parser *p, json_t *array, size_t index, const char *where,
                             const char *key, json_t **obj, char path[PATH_BYTES])
{
    join_path(path, where, key, (long)index);
    *obj = json_array_get(array, index);
    if (!json_is_object(*obj))
        return hccl_raise(p->api, HCCL_E_PARA, "rank table: %s must be an object", path);
    return HCCL_SUCCESS;
}

/* server_count, where given, agrees with the list. */
static HcclResult check_server_count(parser *p, json_t *obj, const char *where, json_t *servers)
{
    uint64_t count;
    bool present;
    HcclResult err = get_number(p, obj, where, "server_count", false, UINT32_MAX, &count, &present);
    if (err || !present || count == json_array_size(servers))
        return err;
    char path[PATH_BYTES];
    join_path(path, where, "server_count", -1);
    return hccl_raise(p->api, HCCL_E_PARA,
                      "rank table: %s is %llu but the server_list beside it "
                      "lists %zu servers",
                      path, (unsigned long long)count, json_array_size(servers));
}

static size_t count_devices(json_t *servers)
{
    size_t total = 0, i;
    json_t *server;
    json_array_foreach(servers, i, server)
    {
        json_t *devices = json_is_object(server) ? json_object_get(server, "device") : NULL;
        total += json_is_array(devices) ? json_array_size(devices) : 0;
    }
    return total;
}

static HcclResult parse_device(parser *p, json_t *device, const char *where,
                               const hccl_rank_entry *server)
{
    uint64_t rank, device_id, super_id = 0;
    bool present, has_super;
    HcclResult err = get_number(p, device, where, "rank_id", true, UINT32_MAX, &rank, &present);
    if (!err)
        err = get_number(p, device, where, "device_id", true, MAX_DEVICE_ID, &device_id, &present);
    if (!err)
        err = get_number(p, device, where, "super_device_id", p->needs_super_device_id, UINT32_MAX,
                         &super_id, &has_super);
    if (err)
        return err;
    char path[PATH_BYTES];
    join_path(path, where, "rank_id", -1);
    if (rank >= p->table->nranks)
        return hccl_raise(p->api, HCCL_E_PARA,
                          "rank table: %s is %llu, but the table lists %u devices (rank ids are "
                          "0 to %u)",
                          path, (unsigned long long)rank, p->table->nranks, p->table->nranks - 1);
    if (p->seen[rank])
        return hccl_raise(p->api, HCCL_E_PARA, "rank table: %s: rank %llu is listed twice", path,
                          (unsigned long long)rank);
    for (uint32_t r = 0; r < p->table->nranks; r++)
        if (p->seen[r] && p->table->ranks[r].device == (int32_t)device_id &&
            !strcmp(p->table->ranks[r].server_id, server->server_id)) {
            join_path(path, where, "device_id", -1);
            return hccl_raise(p->api, HCCL_E_PARA,
                              "rank table: %s: device %llu of server %s is listed twice (ranks "
                              "%u and %llu)",
                              path, (unsigned long long)device_id, server->server_id, r,
                              (unsigned long long)rank);
        }
    hccl_rank_entry *entry = &p->table->ranks[rank];
    *entry = *server;
    entry->device = (int32_t)device_id;
    entry->super_device_id = has_super ? (int64_t)super_id : -1;
    err = get_text(p, device, where, "device_ip", false, entry->device_ip);
    if (err)
        return err;
    p->seen[rank] = true;
    return HCCL_SUCCESS;
}

static HcclResult parse_server(parser *p, json_t *server, const char *where)
{
    hccl_rank_entry base = {.super_device_id = -1};
    HcclResult err = get_text(p, server, where, "server_id", true, base.server_id);
    if (err)
        return err;
    /* Where the server is reached: a container's address before the host's. */
    static const char *const address_fields[] = {"container_ip", "server_ip", "server_id"};
    for (size_t i = 0; i < 3 && !base.server_address[0]; i++) {
        err = get_text(p, server, where, address_fields[i], false, base.server_address);
        if (err)
            return err;
        base.address_field = address_fields[i];
        join_path(base.address_path, where, address_fields[i], -1);
    }
    json_t *devices;
    err = get_array(p, server, where, "device", true, &devices);
    if (err)
        return err;
    char path[PATH_BYTES];
    join_path(path, where, "device", -1);
    if (json_array_size(devices) == 0)
        return hccl_raise(p->api, HCCL_E_PARA, "rank table: %s lists no device", path);
    size_t i;
    json_t *device;
    json_array_foreach(devices, i, device)
    {
        char device_path[PATH_BYTES];
        err = get_object(p, devices, i, where, "device", &device, device_path);
        if (!err)
            err = parse_device(p, device, device_path, &base);
        if (err)
            return err;
    }
    return HCCL_SUCCESS;
}

static HcclResult parse_servers(parser *p, json_t *servers, const char *where)
{
    size_t i;
    json_t *server;
    json_array_foreach(servers, i, server)
    {
        char path[PATH_BYTES];
        HcclResult err = get_object(p, servers, i, where, "server_list", &server, path);
        if (!err)
            err = parse_server(p, server, path);
        if (err)
            return err;
    }
    p->table->nservers += (uint32_t)json_array_size(servers);
    return HCCL_SUCCESS;
}

/* super_pod_list: which servers share a super pod. */
static HcclResult parse_super_pods(parser *p, json_t *obj, const char *where)
{
    json_t *pods;
    HcclResult err = get_array(p, obj, where, "super_pod_list", false, &pods);
    if (err || !pods)
        return err;
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        char pod_path[PATH_BYTES], pod_id[HCCL_RANK_TABLE_TEXT];
        json_t *servers;
        err = get_object(p, pods, i, where, "super_pod_list", &pod, pod_path);
        if (!err)
            err = get_text(p, pod, pod_path, "super_pod_id", true, pod_id);
        if (!err)
            err = get_array(p, pod, pod_path, "server_list", true, &servers);
        if (err)
            return err;
        size_t j;
        json_t *server;
        json_array_foreach(servers, j, server)
        {
            char server_path[PATH_BYTES], server_id[HCCL_RANK_TABLE_TEXT];
            err = get_object(p, servers, j, pod_path, "server_list", &server, server_path);
            if (!err)
                err = get_text(p, server, server_path, "server_id", true, server_id);
            if (err)
                return err;
            bool known = false;
            for (uint32_t r = 0; r < p->table->nranks; r++)
                if (!strcmp(p->table->ranks[r].server_id, server_id)) {
                    memcpy(p->table->ranks[r].super_pod_id, pod_id, sizeof pod_id);
                    known = true;
                }
            if (!known)
                return hccl_raise(p->api, HCCL_E_PARA,
                                  "rank table: %s.server_id \"%s\" is no server of the table",
                                  server_path, server_id);
        }
    }
    return HCCL_SUCCESS;
}

static HcclResult parse_root(parser *p, json_t *root)
{
    if (!json_is_object(root))
        return hccl_raise(p->api, HCCL_E_PARA, "rank table: the file is not a JSON object");
    const char *version, *status;
    HcclResult err = get_string(p, root, "", "version", true, &version);
    if (!err)
        err = get_string(p, root, "", "status", false, &status);
    if (err)
        return err;
    if (strcmp(version, "1.0") != 0 && strcmp(version, "1.2") != 0)
        return hccl_raise(p->api, HCCL_E_PARA,
                          "rank table: version is \"%s\"; \"1.0\" and \"1.2\" are read", version);
    if (status && strcmp(status, "completed") != 0)
        return hccl_raise(p->api, HCCL_E_PARA,
                          "rank table: status is \"%s\"; a table is used once \"completed\"",
                          status);
    snprintf(p->table->version, sizeof p->table->version, "%s", version);
    p->needs_super_device_id = !strcmp(version, "1.2");

    json_t *groups, *servers = NULL;
    err = get_array(p, root, "", "server_group_list", false, &groups);
    if (!err && !groups)
        err = get_array(p, root, "", "server_list", true, &servers);
    if (err)
        return err;

    /* Count first: rank ids are checked against the number of devices. */
    size_t total = 0, i;
    json_t *group;
    if (groups) {
        json_array_foreach(groups, i, group)
        {
            char path[PATH_BYTES];
            json_t *list;
            err = get_object(p, groups, i, "", "server_group_list", &group, path);
            if (!err)
                err = get_array(p, group, path, "server_list", true, &list);
            if (err)
                return err;
            total += count_devices(list);
        }
    } else {
        total = count_devices(servers);
    }
    if (total == 0)
        return hccl_raise(p->api, HCCL_E_PARA, "rank table: no server lists a device");
    if (total > UINT32_MAX)
        return hccl_raise(p->api, HCCL_E_PARA, "rank table: %zu devices are too many", total);
    p->table->nranks = (uint32_t)total;
    p->table->ranks = calloc(total, sizeof *p->table->ranks);
    p->seen = calloc(total, sizeof *p->seen);
    if (!p->table->ranks || !p->seen)
        return hccl_raise(p->api, HCCL_E_MEMORY, "out of memory for a table of %zu ranks", total);

    if (groups) {
        json_array_foreach(groups, i, group)
        {
            char path[PATH_BYTES];
            join_path(path, "", "server_group_list", (long)i);
            json_t *list = json_object_get(group, "server_list");
            err = check_server_count(p, group, path, list);
            if (!err)
                err = parse_servers(p, list, path);
            if (!err)
                err = parse_super_pods(p, group, path);
            if (err)
                return err;
        }
    } else {
        err = check_server_count(p, root, "", servers);
        if (!err)
            err = parse_servers(p, servers, "");
        if (!err)
            err = parse_super_pods(p, root, "");
        if (err)
            return err;
    }
    for (uint32_t r = 0; r < p->table->nranks; r++)
        if (!p->seen[r])
            return hccl_raise(p->api, HCCL_E_PARA,
                              "rank table: no device has rank_id \"%u\" (the %u devices must "
                              "take rank ids 0 to %u)",
                              r, p->table->nranks, p->table->nranks - 1);
    return HCCL_SUCCESS;
}

HcclResult hccl_rank_table_parse(const char *api, const char *text, size_t len,
                                 hccl_rank_table *table)
{
    memset(table, 0, sizeof *table);
    hccl_sha256(text, len, table->digest);
    json_error_t error;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &error);
    if (!root)
        return hccl_raise(api, HCCL_E_PARA, "rank table: not JSON (line %d, column %d: %s)",
                          error.line, error.column, error.text);
    parser p = {.api = api, .table = table};
    HcclResult err = parse_root(&p, root);
    free(p.seen);
    json_decref(root);
    if (err)
        hccl_rank_table_free(table);
    return err;
}

HcclResult hccl_rank_table_load(const char *api, const char *path, hccl_rank_table *table)
{
    /* Non-blocking: a FIFO given as the table must not hang the open. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return hccl_raise(api, HCCL_E_OPEN_FILE_FAILURE, "rank table %s cannot be opened: %s", path,
                          strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return hccl_raise(api, HCCL_E_OPEN_FILE_FAILURE, "rank table %s is not a regular file",
                          path);
    }
    if (st.st_size > (off_t)HCCL_RANK_TABLE_MAX_BYTES) {
        close(fd);
        return hccl_raise(api, HCCL_E_PARA, "rank table %s is larger than %u MiB", path,
                          HCCL_RANK_TABLE_MAX_BYTES >> 20);
    }
    size_t size = (size_t)st.st_size, got = 0;
    char *text = malloc(size + 1);
    if (!text) {
        close(fd);
        return hccl_raise(api, HCCL_E_MEMORY, "out of memory for rank table %s", path);
    }
    while (got < size) {
        ssize_t n = read(fd, text + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    int read_errno = errno;
    close(fd);
    if (got != size) {
        free(text);
        return hccl_raise(api, HCCL_E_OPEN_FILE_FAILURE, "rank table %s cannot be read: %s", path,
                          got < size ? strerror(read_errno) : "it changed size");
    }
    HcclResult err = hccl_rank_table_parse(api, text, size, table);
    free(text);
    return err;
}

void hccl_rank_table_free(hccl_rank_table *table)
{
    free(table->ranks);
    table->ranks = NULL;
    table->nranks = 0;
}
