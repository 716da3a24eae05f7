/** Connection and table collation on MySQL/MariaDB (see STACK-NOTES: collation trap). */
export const MYSQL_COLLATION = 'utf8mb4_unicode_ci';
